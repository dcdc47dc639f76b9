package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import org.junit.jupiter.api.Test;

/** The judging a run's windows recorded, set against its contract and against another run's (#60, item 4). */
class JudgingTest {

    private static final Contract CONTRACT = ContractLoader.load(Path.of("../config/contract.yaml"));

    private static Judging judged(String objectives, double floor) {
        final Contract.Objectives o = Judging.parse(objectives);
        return new Judging(o, objectives, floor, 10.0, 5.0, true, false);
    }

    @Test
    void aWhatIfSaysWhichObjectivesItReplacedAndWhichItKept() {
        // the README's what-if: --goodput ttft:100 replaces TTFT and, given alone, drops TPOT and E2E
        final Contract.Objectives c = CONTRACT.objectives();
        assertThat(c.ttftUs()).isPresent();
        assertThat(c.tpotUs()).isPresent();
        assertThat(c.e2eUs()).isPresent();
        assertThat(judged("ttft:100", CONTRACT.quality().floor()).against(CONTRACT)).hasSize(4)
                .anySatisfy(p -> assertThat(p).startsWith("TTFT replaced (").endsWith(" -> 100 ms)"))
                .anySatisfy(p -> assertThat(p).startsWith("TPOT dropped (contract: "))
                .anySatisfy(p -> assertThat(p).startsWith("E2E dropped (contract: "))
                .anySatisfy(p -> assertThat(p).startsWith("quality floor kept"));
        // judged by the contract's own: nothing to say
        assertThat(judged(dev.goodput.definitions.SloFlags.text(c), CONTRACT.quality().floor()).against(CONTRACT)).isEmpty();
        assertThat(judged("none", 0.5).against(CONTRACT)).contains("quality floor replaced (" + CONTRACT.quality().floor() + " -> 0.5)");
    }

    @Test
    void compareFlagsResultsJudgedByOtherObjectives() {
        final ObjectMapper json = new ObjectMapper();
        final var a = json.valueToTree(judged("ttft:500 tpot:50 e2el:10000", 1.0).json());
        final var b = json.valueToTree(judged("ttft:100", 1.0).json());
        assertThat(Comparison.judging(a, a)).isEmpty();
        assertThat(Comparison.judging(a, b)).singleElement().satisfies(d -> {
            assertThat(d.field()).isEqualTo("judged_by.objectives");
            assertThat(d.unfair()).isTrue();
        });
        // a bundle from before the judging was recorded says so, and is not called comparable
        assertThat(Comparison.judging(a, json.createObjectNode())).hasSize(4);
    }
}

package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import org.junit.jupiter.api.Test;

class ContractDiffTest {

    private static Contract contract(String replaceFrom, String replaceTo) throws Exception {
        final String text = Files.readString(Path.of("../config/contract.yaml"));
        assertThat(text).contains(replaceFrom);
        return ContractLoader.parse("test", text.replace(replaceFrom, replaceTo));
    }

    @Test
    void identicalContractsHaveNoDifference() throws Exception {
        final Contract a = contract("bf16", "bf16");
        assertThat(ContractDiff.of(a.canonical(), a.canonical())).isEmpty();
    }

    @Test
    void hardwareIsWhatAComparisonIsFor() throws Exception {
        final List<ContractDiff.Difference> d = ContractDiff.of(contract("bf16", "bf16").canonical(),
                contract("gpu_type: H100-SXM-80GB", "gpu_type: A100-80GB").canonical());
        assertThat(d).singleElement().satisfies(x -> {
            assertThat(x.field()).isEqualTo("hardware.gpu_type");
            assertThat(x.a()).isEqualTo("H100-SXM-80GB");
            assertThat(x.b()).isEqualTo("A100-80GB");
            assertThat(x.unfair()).isFalse();
        });
    }

    @Test
    void workloadAndJudgingDifferencesAreUnfair() throws Exception {
        final Contract base = contract("bf16", "bf16");
        for (String[] change : new String[][] {{"ttft_ms: 500", "ttft_ms: 200", "latency_objectives.ttft_ms"},
                {"temperature: 0.0", "temperature: 0.7", "decoding.temperature"},
                {"output_cap_tokens: 128", "output_cap_tokens: 256", "output_cap_tokens"},
                {"metric: contains", "metric: exact_match", "quality.metric"},
                {"cache_state: cold", "cache_state: warm", "cache_state"},
                {"rate_rps: 20", "rate_rps: 40", "concurrency_pattern.rate_rps"}}) {
            final List<ContractDiff.Difference> d = ContractDiff.of(base.canonical(), contract(change[0], change[1]).canonical());
            assertThat(d).as(change[2]).singleElement().satisfies(x -> {
                assertThat(x.field()).isEqualTo(change[2]);
                assertThat(x.unfair()).isTrue();
                assertThat(x.why()).isNotBlank();
            });
        }
    }

    @Test
    void numbersCompareByValue() {
        assertThat(ContractDiff.of(Map.of("x", 1.0), Map.of("x", 1))).isEmpty();
        assertThat(ContractDiff.of(Map.of("x", 1.0), Map.of("x", 1.5))).hasSize(1);
    }
}

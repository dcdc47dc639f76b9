package dev.goodput.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Optional;

import dev.goodput.contract.Contract;
import org.junit.jupiter.api.Test;

class ConventionsTest {

    @Test
    void linearPercentileIsNumpysDefault() {
        // numpy.percentile([1, 2, 3, 4], 50) == 2.5; ([15, 20, 35, 40, 50], 40) == 29.0 (rank 1.6: 20 + 0.6 x 15)
        assertThat(Conventions.linearPercentile(new double[] {1, 2, 3, 4}, 50)).isEqualTo(2.5);
        assertThat(Conventions.linearPercentile(new double[] {15, 20, 35, 40, 50}, 40)).isCloseTo(29.0, within(1e-12));
        assertThat(Conventions.linearPercentile(new double[] {7}, 99)).isEqualTo(7);
        assertThat(Conventions.linearPercentile(new double[] {1, 2}, 100)).isEqualTo(2);
        assertThat(Conventions.linearPercentile(new double[0], 50)).isNaN();
    }

    @Test
    void vllmStartsAtTheFirstChoiceAndAiperfAtTheFirstContent() {
        final long t = 1_764_547_200_000_000L;
        final Conventions.Times r = new Conventions.Times(t, t + 2_000, t + 9_000, t + 29_000, t + 5_000, t + 30_000, 3);
        final long[] arrivals = {t + 9_000, t + 19_000, t + 29_000};
        final Conventions.Measures g = Conventions.measure(Conventions.Tool.GOODPUT, r, arrivals);
        final Conventions.Measures v = Conventions.measure(Conventions.Tool.VLLM, r, arrivals);
        final Conventions.Measures a = Conventions.measure(Conventions.Tool.AIPERF, r, arrivals);
        assertThat(g.ttftUs()).isEqualTo(9_000);
        assertThat(v.ttftUs()).isEqualTo(3_000);
        assertThat(a.ttftUs()).isEqualTo(7_000);
        // Goodput and vLLM end at the stream's finish (30 ms, a closing event with no text), AIPerf at its last content
        assertThat(g.e2eUs()).isEqualTo(30_000);
        assertThat(v.e2eUs()).isEqualTo(28_000);
        assertThat(a.e2eUs()).isEqualTo(27_000);
        assertThat(v.tpotUs()).isEqualTo((28_000 - 3_000) / 2.0);
        assertThat(v.gapsUs()).containsExactly(4_000, 10_000, 10_000, 1_000);
        assertThat(a.gapsUs()).containsExactly(10_000, 10_000);
    }

    @Test
    void oneTokenRequestsUnderATpotObjective() {
        final long t = 1_764_547_200_000_000L;
        final Conventions.Times r = new Conventions.Times(t, t + 1_000, t + 40_000, t + 40_000, -1, -1, 1);
        final long[] arrivals = {r.firstChunkUs()};
        final Contract.Objectives tpotOnly = new Contract.Objectives(Optional.empty(), Optional.of(1L), Optional.empty());
        for (Conventions.Tool tool : Conventions.Tool.values()) {
            assertThat(Conventions.measure(tool, r, arrivals).tpotUs()).as(tool.name()).isNaN();
        }
        assertThat(Conventions.good(Conventions.Tool.GOODPUT, Conventions.measure(Conventions.Tool.GOODPUT, r, arrivals), tpotOnly, true)).isTrue();
        assertThat(Conventions.good(Conventions.Tool.VLLM, Conventions.measure(Conventions.Tool.VLLM, r, arrivals), tpotOnly, true)).isTrue();
        assertThat(Conventions.good(Conventions.Tool.AIPERF, Conventions.measure(Conventions.Tool.AIPERF, r, arrivals), tpotOnly, true)).isFalse();
        // quality only counts for Goodput
        assertThat(Conventions.good(Conventions.Tool.GOODPUT, Conventions.measure(Conventions.Tool.GOODPUT, r, arrivals), tpotOnly, false)).isFalse();
        assertThat(Conventions.good(Conventions.Tool.VLLM, Conventions.measure(Conventions.Tool.VLLM, r, arrivals), tpotOnly, false)).isTrue();
    }

    @Test
    void aRequestWithoutChunksHasNoGapUnderAnyConvention() {
        // a span: TTFT and E2E from its attributes, no chunk received, so no ITL (vLLM's file once said 2.45 s)
        final long t = 1_764_547_200_000_000L;
        final Conventions.Times r = new Conventions.Times(t, t, t + 40_000, t + 2_490_000, -1, -1, 20);
        for (Conventions.Tool tool : Conventions.Tool.values()) {
            assertThat(Conventions.measure(tool, r, new long[0]).gapsUs()).as(tool.name()).isEmpty();
        }
    }
}

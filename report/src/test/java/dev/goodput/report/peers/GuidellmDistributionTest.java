package dev.goodput.report.peers;

import static dev.goodput.report.peers.GuidellmDistribution.w;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** GuideLLM's distribution arithmetic, against values worked by hand from guidellm/schemas/statistics.py. */
class GuidellmDistributionTest {

    @SuppressWarnings("unchecked")
    private static double pct(Map<String, Object> d, String p) {
        return (Double) ((Map<String, Object>) d.get("percentiles")).get(p);
    }

    @Test
    void valuesGiveTheFirstValueWhoseCumulativeWeightReachesP() {
        final Map<String, Object> d = GuidellmDistribution.fromValues(List.of(w(4, 1), w(1, 1), w(3, 1), w(2, 1)), null);
        assertThat((double) d.get("mean")).isCloseTo(2.5, within(1e-12));
        assertThat((double) d.get("variance")).isCloseTo(1.25, within(1e-12));
        assertThat(pct(d, "p50")).isEqualTo(2.0);
        assertThat(pct(d, "p25")).isEqualTo(1.0);
        assertThat(pct(d, "p99")).isEqualTo(4.0);
        assertThat(d.get("count")).isEqualTo(4L);
        assertThat((double) d.get("total_sum")).isCloseTo(10.0, within(1e-12));
    }

    @Test
    void weightsCountAndZeroWeightsDrop() {
        final Map<String, Object> d = GuidellmDistribution.fromValues(List.of(w(10, 3), w(40, 1), w(99, 0)), null);
        assertThat((double) d.get("mean")).isCloseTo(17.5, within(1e-12));
        assertThat((double) d.get("max")).isEqualTo(40.0);
        assertThat(d.get("count")).isEqualTo(4L);
        assertThat((double) d.get("mode")).isEqualTo(10.0);
    }

    @Test
    void rateWeighsEachEventsRateByTheTimeAroundIt() {
        // events at 1, 2, 3 in [0, 4]: durations 0.5, 1, 1, 1, 0.5; rates 0, 1, 1, 1, 0
        final Map<String, Object> d = GuidellmDistribution.rate(List.of(w(1, 1), w(2, 1), w(3, 1)), 0.0, 4.0);
        assertThat((double) d.get("mean")).isCloseTo(0.75, within(1e-12));
        assertThat(d.get("count")).isEqualTo(3L);
    }

    @Test
    void eventsWithinATenthOfAMillisecondAreOne() {
        final var merged = GuidellmDistribution.merge(List.of(w(1.0, 1), w(1.00005, 1), w(2.0, 1)));
        assertThat(merged).hasSize(2);
        assertThat(merged.get(0).weight()).isEqualTo(2.0);
    }

    @Test
    void concurrencyIsTheLevelWeightedByHowLongItHeld() {
        // (0, 2) and (1, 3): level 1 for [0, 1), 2 for [1, 2), 1 for [2, 3)
        final Map<String, Object> d = GuidellmDistribution.concurrency(List.of(new double[] {0, 2}, new double[] {1, 3}), 0.0, 3.0);
        assertThat((double) d.get("mean")).isCloseTo(4.0 / 3, within(1e-12));
        assertThat((double) d.get("max")).isEqualTo(2.0);
        assertThat(d.get("count")).isEqualTo(2L);
    }
}

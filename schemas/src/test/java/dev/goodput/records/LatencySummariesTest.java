package dev.goodput.records;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import dev.goodput.avro.LatencySummary;
import dev.goodput.definitions.Histograms;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** A histogram that grows, summarised over its range, is exactly the summary of its whole-range copy. */
class LatencySummariesTest {

    @Test
    void aGrownHistogramSummarisesAsItsWholeRangeCopy() {
        final Random random = new Random(3);
        final long[] ranges = {Histograms.MAX_REQUEST_LATENCY_US, Histograms.MAX_TOKEN_LATENCY_US};
        for (int round = 0; round < 300; round++) {
            final long range = ranges[round % 2];
            final Histogram grown = Histograms.partial();
            final int n = round % 10 == 0 ? 0 : 1 + random.nextInt(round % 3 == 0 ? 5 : 2_000);
            // values from a microsecond to beyond the range (clamped to it), some repeated
            final long scale = 1L << random.nextInt(40);
            for (int i = 0; i < n; i++) {
                final long v = random.nextInt(4) == 0 ? range + 1 : (long) (random.nextDouble() * scale);
                Histograms.record(grown, v, range);
                if (random.nextInt(5) == 0) {
                    Histograms.record(grown, v, range);
                }
            }
            final LatencySummary expected = LatencySummaries.of(Histograms.overRange(grown, range));
            final LatencySummary actual = LatencySummaries.overRange(grown, range);
            assertThat(actual).as("round %d: %d values up to %d", round, n, scale).isEqualTo(expected);
            assertThat(actual.getCount()).isEqualTo(grown.getTotalCount());
        }
    }
}

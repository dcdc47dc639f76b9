package dev.goodput.definitions;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.function.Supplier;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class HistogramsTest {

    /** What HdrHistogram itself writes for {@code h}: the encoding window records have always carried. */
    private static byte[] library(Histogram h) {
        final ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity() + 1024);
        final int n = h.encodeIntoCompressedByteBuffer(b);
        return Arrays.copyOf(b.array(), n);
    }

    @Test
    void theCompressedEncodingIsHdrHistogramsByteForByte() {
        final Random rnd = new Random(7);
        final Supplier<?>[] kinds = {Histograms::request, Histograms::token, Histograms::partial};
        for (Supplier<?> kind : kinds) {
            for (int values : new int[] {0, 1, 10, 1_000, 100_000}) {
                final Histogram h = (Histogram) kind.get();
                for (int i = 0; i < values; i++) {
                    // latencies over six decades, and a few at the range's end
                    Histograms.record(h, (long) Math.pow(10, 1 + rnd.nextDouble() * 6) + (i % 997 == 0 ? 600_000_000L : 0),
                            Histograms.MAX_TOKEN_LATENCY_US);
                }
                assertThat(Histograms.encode(h)).as("%d values", values).isEqualTo(library(h));
                assertThat(Histograms.decode(Histograms.encode(h))).isEqualTo(h);
            }
        }
    }

    /**
     * The mean is HdrHistogram's to the last bit, and the percentiles are its {@code getValueAtPercentile},
     * value for value, over every kind of histogram: empty, one value, a few, thousands, values piled
     * on one bucket, zeros and clamped values.
     */
    @Test
    void theMeanAndThePercentilesAreHdrHistogramsOwn() {
        final Random rnd = new Random(13);
        final Supplier<?>[] kinds = {Histograms::request, Histograms::token, Histograms::partial};
        for (int round = 0; round < 600; round++) {
            final Histogram h = (Histogram) kinds[round % 3].get();
            final int values = round % 7 == 0 ? 1 : rnd.nextInt(round % 2 == 0 ? 20 : 5_000);
            final double decades = 1 + rnd.nextInt(9);
            for (int i = 0; i < values; i++) {
                final long v = rnd.nextInt(50) == 0 ? 0 : (long) Math.pow(10, rnd.nextDouble() * decades);
                Histograms.record(h, v, Histograms.MAX_TOKEN_LATENCY_US);
                if (rnd.nextInt(10) == 0) {
                    h.recordValueWithCount(Math.min(v, Histograms.MAX_TOKEN_LATENCY_US), 1 + rnd.nextInt(1_000));
                }
            }
            final String what = String.format(Locale.ROOT, "round %d: %d values over %s decades", round,
                    h.getTotalCount(), decades);
            assertThat(Double.doubleToRawLongBits(Histograms.mean(h))).as(what).isEqualTo(Double.doubleToRawLongBits(h.getMean()));
            final Histograms.Percentiles p = Histograms.percentiles(h);
            assertThat(p.mean()).as(what).isEqualTo(h.getMean());
            assertThat(new long[] {p.count(), p.p50(), p.p90(), p.p95(), p.p99(), p.p999(), p.max()}).as(what)
                    .containsExactly(h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                            h.getValueAtPercentile(95), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9),
                            h.getMaxValue());
        }
    }

    /** The count each percentile walks to, at totals where rounding decides it (HdrHistogram's own, not a nearest rank). */
    @Test
    void theCountAtAPercentileIsHdrHistogramsRounding() {
        // the values 1..total, each in its own bucket (below 2,048 at three digits): the value found is the count reached
        final Histogram h = Histograms.partial();
        for (long total = 1; total < 2_048; total++) {
            h.recordValue(total);
            for (double p : new double[] {50, 90, 95, 99, 99.9, 100}) {
                assertThat(Histograms.countAtPercentile(p, total)).as("p%s of %d", p, total)
                        .isEqualTo(h.getValueAtPercentile(p));
            }
        }
    }

    @Test
    void aGrowingHistogramOverItsRangeIsAWholeRangeOneByteForByte() {
        final Random rnd = new Random(11);
        final Histogram whole = Histograms.request();
        final Histogram growing = Histograms.partial();
        for (int i = 0; i < 50_000; i++) {
            final long v = (long) Math.pow(10, rnd.nextDouble() * 7);
            Histograms.record(whole, v, Histograms.MAX_REQUEST_LATENCY_US);
            Histograms.record(growing, v, Histograms.MAX_REQUEST_LATENCY_US);
        }
        assertThat(growing.getHighestTrackableValue()).isLessThan(whole.getHighestTrackableValue());
        assertThat(Histograms.encode(Histograms.overRange(growing, Histograms.MAX_REQUEST_LATENCY_US)))
                .isEqualTo(Histograms.encode(whole));
        assertThat(Histograms.percentiles(Histograms.overRange(growing, Histograms.MAX_REQUEST_LATENCY_US)))
                .isEqualTo(Histograms.percentiles(whole));
        // the next call reuses it, from empty
        final Histogram one = Histograms.partial();
        one.recordValue(7);
        assertThat(Histograms.overRange(one, Histograms.MAX_REQUEST_LATENCY_US).getTotalCount()).isEqualTo(1);
    }

    @Test
    void aSmallHistogramAfterALargeOneEncodesAlone() {
        final Histogram large = Histograms.request();
        for (long v = 1; v < 3_000_000_000L; v *= 3) {
            large.recordValue(v);
        }
        Histograms.encode(large);
        final Histogram small = Histograms.partial();
        small.recordValue(42);
        assertThat(Histograms.encode(small)).isEqualTo(library(small));
    }

    @Test
    void theCompactEncodingComesBackAndKeepsGrowing() {
        final Histogram h = Histograms.partial();
        h.recordValue(1_000);
        final Histogram back = Histograms.decodeCompact(Histograms.encodeCompact(h));
        assertThat(back).isEqualTo(h);
        back.recordValue(3_000_000_000L);
        assertThat(back.getTotalCount()).isEqualTo(2);
    }
}

package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBucket;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.NativeHistogramBucket;
import org.junit.jupiter.api.Test;

/**
 * A histogram counted a value with its count at a time gives the snapshot Prometheus's Java client
 * gives for the same values observed one by one: classic buckets, the native schema it ends at (the
 * client halves the resolution past its bucket limit), the native buckets, the zero bucket, count and sum.
 */
class BucketCountsTest {

    private static final double[] CLASSIC = {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    @Test
    void countsAsTheClientCountsForGapsOfEveryRange() {
        int lowest = PrometheusRecorder.NATIVE_SCHEMA;
        for (long seed = 1; seed <= 20; seed++) {
            final Random random = new Random(seed);
            // ITL gaps as window histograms give them: whole microseconds; narrow ranges, and wide ones
            // (1 us to 10 min) that take the client past its 400 buckets, with some zero gaps
            final long maxUs = seed % 4 == 0 ? 600_000_000L : seed % 4 == 1 ? 50_000L : 2_000_000L;
            final TreeMap<Long, Long> gaps = new TreeMap<>();
            for (int i = 0; i < 5_000; i++) {
                final long us = random.nextInt(40) == 0 ? 0 : (long) Math.exp(random.nextDouble() * Math.log(maxUs));
                gaps.merge(us, 1L + random.nextInt(3), Long::sum);
            }
            lowest = Math.min(lowest, compare(gaps, seed));
        }
        assertThat(lowest).as("some ranges took the client past its bucket limit").isLessThan(PrometheusRecorder.NATIVE_SCHEMA);
    }

    @Test
    void powersOfTwoAndBucketEdgesLandWhereTheClientPutsThem() {
        final TreeMap<Long, Long> gaps = new TreeMap<>();
        for (long us : new long[] {1, 2, 500_000, 1_000_000, 2_000_000, 4_000_000, 1_000, 1_024, 976, 977}) {
            gaps.put(us, 2L);
        }
        compare(gaps, -1);
    }

    /** Compares, and returns the native schema the client ended at. */
    private static int compare(TreeMap<Long, Long> gaps, long seed) {
        final Histogram client = Histogram.builder().name("itl_seconds").classicUpperBounds(CLASSIC)
                .nativeInitialSchema(PrometheusRecorder.NATIVE_SCHEMA).nativeMaxNumberOfBuckets(PrometheusRecorder.NATIVE_MAX_BUCKETS)
                .build();
        final double[] bounds = new double[CLASSIC.length + 1];
        System.arraycopy(CLASSIC, 0, bounds, 0, CLASSIC.length);
        bounds[CLASSIC.length] = Double.POSITIVE_INFINITY;
        final BucketCounts counts = new BucketCounts(bounds, PrometheusRecorder.NATIVE_SCHEMA, PrometheusRecorder.NATIVE_MAX_BUCKETS);
        gaps.forEach((us, n) -> {
            for (long k = 0; k < n; k++) {
                client.observe(us / 1e6);
            }
            counts.add(us / 1e6, n);
        });
        final HistogramSnapshot.HistogramDataPointSnapshot expected = client.collect().getDataPoints().get(0);
        final HistogramSnapshot.HistogramDataPointSnapshot actual = counts.snapshot(Labels.EMPTY);
        assertThat(classic(actual)).as("classic buckets, seed %d", seed).isEqualTo(classic(expected));
        assertThat(actual.getNativeSchema()).as("native schema, seed %d", seed).isEqualTo(expected.getNativeSchema());
        assertThat(actual.getNativeZeroCount()).as("zero bucket, seed %d", seed).isEqualTo(expected.getNativeZeroCount());
        assertThat(nativeBuckets(actual)).as("native buckets, seed %d", seed).isEqualTo(nativeBuckets(expected));
        assertThat(actual.getCount()).isEqualTo(expected.getCount());
        assertThat(actual.getSum()).isCloseTo(expected.getSum(), within(1e-9 * Math.max(1, expected.getSum())));
        return expected.getNativeSchema();
    }

    private static List<String> classic(HistogramSnapshot.HistogramDataPointSnapshot p) {
        final List<String> out = new ArrayList<>();
        for (ClassicHistogramBucket b : p.getClassicBuckets()) {
            out.add(b.getUpperBound() + ":" + b.getCount());
        }
        return out;
    }

    private static List<String> nativeBuckets(HistogramSnapshot.HistogramDataPointSnapshot p) {
        final List<String> out = new ArrayList<>();
        for (NativeHistogramBucket b : p.getNativeBucketsForPositiveValues()) {
            out.add(b.getBucketIndex() + ":" + b.getCount());
        }
        return out;
    }
}

package dev.goodput.sink;

import java.util.Map;
import java.util.TreeMap;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.Exemplars;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.NativeHistogramBuckets;

/**
 * One series of a histogram counted as Prometheus's Java client counts it (classic buckets, and
 * native ones at a schema reduced while they exceed the limit), but added a value with its count at
 * a time: a final window's ITL histogram goes in as its distinct values, not as one observation per
 * gap replayed into the client. {@code BucketCountsTest} sets the snapshot against the client's own
 * for the same values. Thread-safe.
 */
final class BucketCounts {

    /** The client's native bucket boundaries of the fraction in [0.5, 1), schemas 1 to 8 (as it computes them). */
    private static final double[][] NATIVE_BOUNDS = new double[8][];
    /** The client's default zero threshold: values at or below it count in the zero bucket. */
    static final double ZERO_THRESHOLD = Math.pow(2.0, -128);
    private static final int MIN_SCHEMA = -4;

    static {
        for (int schema = 1; schema <= 8; schema++) {
            final double[] b = new double[1 << schema];
            b[0] = 0.5;
            final double factor = Math.pow(2.0, Math.pow(2.0, -schema));
            for (int i = 1; i < b.length; i++) {
                b[i] = i % 2 == 0 && schema > 1 ? NATIVE_BOUNDS[schema - 2][i / 2] : b[i - 1] * factor;
            }
            NATIVE_BOUNDS[schema - 1] = b;
        }
    }

    private final double[] classicBounds;
    private final long[] classic;
    private final int maxBuckets;
    private final TreeMap<Integer, Long> positive = new TreeMap<>();
    private final long createdMillis = System.currentTimeMillis();
    private int schema;
    private long zero;
    private long count;
    private double sum;

    /**
     * @param classicBounds the classic upper bounds, ascending, the last +Inf
     * @param schema        the native schema to start at
     * @param maxBuckets    native buckets above which the schema is reduced
     */
    BucketCounts(double[] classicBounds, int schema, int maxBuckets) {
        this.classicBounds = classicBounds.clone();
        this.classic = new long[classicBounds.length];
        this.schema = schema;
        this.maxBuckets = maxBuckets;
    }

    /** Adds {@code n} observations of {@code value} (not negative). */
    synchronized void add(double value, long n) {
        if (n <= 0) {
            return;
        }
        classic[firstAtLeast(classicBounds, value)] += n;
        if (value <= ZERO_THRESHOLD) {
            zero += n;
        } else {
            positive.merge(nativeIndex(value, schema), n, Long::sum);
            while (positive.size() > maxBuckets && schema > MIN_SCHEMA) {
                halve();
            }
        }
        count += n;
        sum += value * n;
    }

    /** The series as the client would collect it. */
    synchronized HistogramSnapshot.HistogramDataPointSnapshot snapshot(Labels labels) {
        final int[] indexes = new int[positive.size()];
        final long[] counts = new long[positive.size()];
        int k = 0;
        for (Map.Entry<Integer, Long> e : positive.entrySet()) {
            indexes[k] = e.getKey();
            counts[k++] = e.getValue();
        }
        return new HistogramSnapshot.HistogramDataPointSnapshot(ClassicHistogramBuckets.of(classicBounds, classic.clone()), schema,
                zero, ZERO_THRESHOLD, NativeHistogramBuckets.of(indexes, counts), NativeHistogramBuckets.EMPTY, sum, labels,
                Exemplars.EMPTY, createdMillis);
    }

    /** Halves the native resolution: bucket i of the schema becomes ceil(i / 2) of the next lower one. */
    private void halve() {
        final TreeMap<Integer, Long> wider = new TreeMap<>();
        positive.forEach((i, n) -> wider.merge(i > 0 ? (i + 1) / 2 : i / 2, n, Long::sum));
        positive.clear();
        positive.putAll(wider);
        schema--;
    }

    /** The native bucket of a positive value at {@code schema}: bucket i holds (2^((i-1)/2^schema), 2^(i/2^schema)]. */
    static int nativeIndex(double value, int schema) {
        double frac = value;
        int exp = 0;
        while (frac < 0.5) {
            frac *= 2.0;
            exp--;
        }
        while (frac >= 1.0) {
            frac /= 2.0;
            exp++;
        }
        if (schema >= 1) {
            final double[] bounds = NATIVE_BOUNDS[schema - 1];
            return firstAtLeast(bounds, frac) + (exp - 1) * bounds.length;
        }
        int index = exp;
        if (frac == 0.5) {
            index--;
        }
        final int offset = (1 << -schema) - 1;
        return (index + offset) >> -schema;
    }

    /** The first index whose bound is at least {@code value} (the length when none is). */
    private static int firstAtLeast(double[] bounds, double value) {
        int lo = 0;
        int hi = bounds.length - 1;
        while (lo <= hi) {
            final int mid = (lo + hi) / 2;
            if (bounds[mid] == value) {
                return mid;
            } else if (bounds[mid] < value) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return hi + 1;
    }
}

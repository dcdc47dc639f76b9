package dev.goodput.definitions;

import java.util.Arrays;

/**
 * Input or output sequence lengths (tokens) of a set of requests, summarised as GuideLLM and AIPerf
 * users read them: count, mean, population standard deviation, min, p50, p90, p99, max. Lengths are
 * few and whole, so the percentiles are exact: the nearest-rank value (the smallest length with at
 * least p% of the requests at or below it).
 */
public record SequenceLengths(long count, double mean, double std, long min, long p50, long p90, long p99, long max) {

    /** The summary of these lengths; all zero for none. */
    public static SequenceLengths of(long[] lengths) {
        if (lengths.length == 0) {
            return new SequenceLengths(0, 0, 0, 0, 0, 0, 0, 0);
        }
        final long[] a = lengths.clone();
        Arrays.sort(a);
        double sum = 0;
        for (long v : a) {
            sum += v;
        }
        final double mean = sum / a.length;
        double sq = 0;
        for (long v : a) {
            sq += (v - mean) * (v - mean);
        }
        return new SequenceLengths(a.length, mean, Math.sqrt(sq / a.length), a[0], nearestRank(a, 50), nearestRank(a, 90),
                nearestRank(a, 99), a[a.length - 1]);
    }

    /** The value at rank ceil(p/100 x n) of ascending values (1-based). */
    static long nearestRank(long[] ascending, double p) {
        final int rank = (int) Math.ceil(p / 100 * ascending.length);
        return ascending[Math.max(0, rank - 1)];
    }
}

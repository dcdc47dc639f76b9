package dev.goodput.report;

/**
 * MLPerf LoadGen's early-stopping rule for a latency percentile, as a pure function.
 *
 * <p>A query is "over" a latency bound when it took longer. If the true fraction of queries over
 * the bound were exactly {@code 1 - percentile}, the number over it among {@code n} queries would
 * be Binomial(n, 1 - percentile). Seeing at most {@code t} over the bound is then evidence, at
 * {@code confidence}, that the true percentile is within the bound when
 * {@code P(Binomial(n, 1 - percentile) <= t) <= 1 - confidence}. LoadGen requires at least one
 * query over the bound ({@code t >= 1}), so the fewest queries that can support a percentile are
 * the smallest {@code n} passing with {@code t = 1} (64 for p90 and 662 for p99, both at 99%
 * confidence). With the largest passing {@code t}, the {@code t}-th slowest query is the
 * early-stopping estimate, an upper bound on the percentile that holds at the stated confidence,
 * and the {@code t - 1} slower ones are "discarded" (LoadGen's wording and count: with the fewest
 * queries nothing is discarded and the estimate is the slowest query).
 */
public final class EarlyStopping {

    /** MLPerf's tail-latency setting: 99th percentile, 99% confidence. */
    public static final double P99 = 0.99;
    public static final double CONFIDENCE = 0.99;

    private EarlyStopping() {
    }

    /**
     * The verdict for {@code n} queries.
     *
     * @param samples          how many queries
     * @param minSamples       the fewest queries that could support the percentile at this confidence
     * @param supported        whether {@code samples >= minSamples}
     * @param discard          how many slowest queries are set aside, as LoadGen counts them (0 when not supported)
     */
    public record Verdict(long samples, long minSamples, boolean supported, long discard) {
        /** The early-stopping estimate: the slowest remaining value of the ascending sample array, or -1 when not supported. */
        public long estimate(long[] ascending) {
            return supported ? ascending[(int) (samples - discard - 1)] : -1;
        }
    }

    /** Evaluates {@code n} queries for a percentile (0..1) at a confidence (0..1). */
    public static Verdict evaluate(long n, double percentile, double confidence) {
        final long min = minSamples(percentile, confidence);
        if (n < min) {
            return new Verdict(n, min, false, 0);
        }
        return new Verdict(n, min, true, maxOverBound(n, percentile, confidence) - 1);
    }

    /** The fewest queries that can pass with one query over the bound. */
    public static long minSamples(double percentile, double confidence) {
        long n = 2;
        while (binomialCdf(n, 1 - percentile, 1) > 1 - confidence) {
            n++;
        }
        return n;
    }

    /** The largest {@code t >= 1} with {@code P(Binomial(n, 1 - percentile) <= t) <= 1 - confidence}, or 0 if none. */
    static long maxOverBound(long n, double percentile, double confidence) {
        final double q = 1 - percentile;
        final double logQ = Math.log(q);
        final double logP = Math.log(percentile);
        double logPmf = n * logP;
        double cdf = Math.exp(logPmf);
        long best = 0;
        for (long t = 1; t <= n; t++) {
            logPmf += Math.log((double) (n - t + 1) / t) + logQ - logP;
            cdf += Math.exp(logPmf);
            if (cdf > 1 - confidence) {
                break;
            }
            best = t;
        }
        return best;
    }

    /** P(X <= t) for X ~ Binomial(n, q), summed in log space so large {@code n} does not underflow the terms that matter. */
    static double binomialCdf(long n, double q, long t) {
        final double logQ = Math.log(q);
        final double logP = Math.log(1 - q);
        double logPmf = n * logP;
        double cdf = Math.exp(logPmf);
        for (long x = 1; x <= t && x <= n; x++) {
            logPmf += Math.log((double) (n - x + 1) / x) + logQ - logP;
            cdf += Math.exp(logPmf);
        }
        return cdf;
    }
}

package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class EarlyStoppingTest {

    @Test
    void binomialCdfMatchesTheClosedForm() {
        // P(X <= 1), X ~ Bin(64, 0.1) = 0.9^64 + 64 * 0.1 * 0.9^63
        final double expected = Math.pow(0.9, 64) + 64 * 0.1 * Math.pow(0.9, 63);
        assertThat(EarlyStopping.binomialCdf(64, 0.1, 1)).isCloseTo(expected, within(1e-12));
        assertThat(EarlyStopping.binomialCdf(10, 0.5, 10)).isCloseTo(1.0, within(1e-12));
    }

    @Test
    void fewestQueriesMatchLoadGen() {
        // LoadGen prints "Processed at least 64 queries" for a 90th percentile at 99% confidence
        assertThat(EarlyStopping.minSamples(0.90, 0.99)).isEqualTo(64);
        // by hand for p99: 0.99^n + n * 0.01 * 0.99^(n-1) <= 0.01 first holds at n = 662
        assertThat(Math.pow(0.99, 662) + 662 * 0.01 * Math.pow(0.99, 661)).isLessThanOrEqualTo(0.01);
        assertThat(Math.pow(0.99, 661) + 661 * 0.01 * Math.pow(0.99, 660)).isGreaterThan(0.01);
        assertThat(EarlyStopping.minSamples(EarlyStopping.P99, EarlyStopping.CONFIDENCE)).isEqualTo(662);
    }

    @Test
    void discardsAsManyQueriesAsLoadGenSays() {
        // "Would discard N highest latency queries" from published LoadGen summaries (p90, 99% confidence)
        assertThat(EarlyStopping.evaluate(2048, 0.90, 0.99).discard()).isEqualTo(172);
        assertThat(EarlyStopping.evaluate(2116, 0.90, 0.99).discard()).isEqualTo(178);
        assertThat(EarlyStopping.evaluate(2145, 0.90, 0.99).discard()).isEqualTo(181);
        assertThat(EarlyStopping.evaluate(7469, 0.90, 0.99).discard()).isEqualTo(685);
    }

    @Test
    void tooFewSamplesDoNotSupportTheP99() {
        final EarlyStopping.Verdict v = EarlyStopping.evaluate(661, EarlyStopping.P99, EarlyStopping.CONFIDENCE);
        assertThat(v.supported()).isFalse();
        assertThat(v.minSamples()).isEqualTo(662);
        assertThat(v.estimate(new long[661])).isEqualTo(-1);
        final EarlyStopping.Verdict ok = EarlyStopping.evaluate(662, EarlyStopping.P99, EarlyStopping.CONFIDENCE);
        assertThat(ok.supported()).isTrue();
        assertThat(ok.discard()).isZero();
        final long[] values = new long[662];
        values[661] = 99;
        assertThat(ok.estimate(values)).as("with the fewest queries the estimate is the slowest").isEqualTo(99);
    }

    @Test
    void estimateIsTheSlowestValueLeftAfterDiscarding() {
        final long[] ascending = new long[10_000];
        for (int i = 0; i < ascending.length; i++) {
            ascending[i] = i + 1;
        }
        final EarlyStopping.Verdict v = EarlyStopping.evaluate(ascending.length, EarlyStopping.P99, EarlyStopping.CONFIDENCE);
        // 10,000 queries: expected 100 over the p99; at 99% confidence fewer may be set aside
        assertThat(v.discard()).isBetween(70L, 99L);
        assertThat(EarlyStopping.binomialCdf(10_000, 0.01, v.discard() + 1)).isLessThanOrEqualTo(0.01);
        assertThat(EarlyStopping.binomialCdf(10_000, 0.01, v.discard() + 2)).isGreaterThan(0.01);
        assertThat(v.estimate(ascending)).isEqualTo(ascending.length - v.discard());
        // the estimate is conservative: at or above the nearest-rank p99 (9,900)
        assertThat(v.estimate(ascending)).isGreaterThanOrEqualTo(9_900);
    }
}

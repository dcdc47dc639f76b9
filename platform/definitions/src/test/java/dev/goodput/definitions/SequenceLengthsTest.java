package dev.goodput.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class SequenceLengthsTest {

    @Test
    void summarisesLengthsWithExactNearestRankPercentiles() {
        final long[] lengths = new long[100];
        for (int i = 0; i < 100; i++) {
            lengths[i] = 100 - i; // 100 .. 1, unsorted on purpose
        }
        final SequenceLengths s = SequenceLengths.of(lengths);
        assertThat(s.count()).isEqualTo(100);
        assertThat(s.mean()).isCloseTo(50.5, within(1e-12));
        // population std of 1..100: sqrt((100^2 - 1) / 12)
        assertThat(s.std()).isCloseTo(Math.sqrt((100.0 * 100 - 1) / 12), within(1e-9));
        assertThat(s.min()).isEqualTo(1);
        assertThat(s.p50()).isEqualTo(50);
        assertThat(s.p90()).isEqualTo(90);
        assertThat(s.p99()).isEqualTo(99);
        assertThat(s.max()).isEqualTo(100);
        assertThat(lengths[0]).as("the input is left as it was").isEqualTo(100);
    }

    @Test
    void oneLengthIsEveryPercentileAndNoneIsZero() {
        final SequenceLengths one = SequenceLengths.of(new long[] {64});
        assertThat(one.p50()).isEqualTo(64);
        assertThat(one.p99()).isEqualTo(64);
        assertThat(one.std()).isZero();
        assertThat(SequenceLengths.of(new long[0]).count()).isZero();
    }
}

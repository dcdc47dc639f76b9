package dev.goodput.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;

import dev.goodput.definitions.Micros;
import org.junit.jupiter.api.Test;

class MicroClockTest {

    @Test
    void theAnchorComesFromTheTightestBracketAndSitsInItsMiddle() {
        // Three tries: held up 5 ms between the reads, then 40 us, then 2 us (the wall clock read at 2,001,000 ns).
        final ArrayDeque<Long> nanos = new ArrayDeque<>(List.of(0L, 5_000_000L, 1_000_000L, 1_040_000L, 2_000_000L, 2_002_000L));
        final ArrayDeque<Instant> walls = new ArrayDeque<>(List.of(
                Instant.ofEpochSecond(1000, 0), Instant.ofEpochSecond(1000, 1_020_000), Instant.ofEpochSecond(1000, 2_001_000)));
        final long[] a = MicroClock.anchor(nanos::poll, walls::poll, 3);
        assertThat(a[0]).isEqualTo(2_001_000L);
        assertThat(a[1]).isEqualTo(1000L * 1_000_000L + 2_001L);
    }

    @Test
    void readingsTranslateBothWays() {
        // anchored at nanoTime 5,000,000,000 = 1,700,000,000 s since the epoch
        final MicroClock c = MicroClock.anchoredAt(5_000_000_000L, 1_700_000_000_000_000L);
        assertThat(c.micros(5_000_000_000L)).isEqualTo(1_700_000_000_000_000L);
        assertThat(c.micros(5_000_123_999L)).as("truncated to whole microseconds").isEqualTo(1_700_000_000_000_123L);
        assertThat(c.micros(4_999_000_000L)).as("before the anchor").isEqualTo(1_699_999_999_999_000L);
        assertThat(c.toNanoTime(1_700_000_000_000_123L)).isEqualTo(5_000_123_000L);
        assertThat(c.toNanoTime(c.micros(7_654_321_000L))).isEqualTo(7_654_321_000L);
    }

    @Test
    void instantsKeepMicrosecondsOnBothSidesOfTheEpoch() {
        assertThat(Micros.toInstant(1_500_000L)).isEqualTo(Instant.ofEpochSecond(1, 500_000_000));
        assertThat(Micros.toInstant(-1L)).isEqualTo(Instant.ofEpochSecond(-1, 999_999_000));
    }
}

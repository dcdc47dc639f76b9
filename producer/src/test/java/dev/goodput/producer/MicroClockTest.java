package dev.goodput.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;

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
        final MicroClock c = MicroClock.system();
        final long n = System.nanoTime();
        final long us = c.micros(n);
        assertThat(c.toNanoTime(us)).isBetween(n - 1_000, n + 1_000);
        assertThat(Math.abs(us - (Instant.now().toEpochMilli() * 1_000))).isLessThan(50_000);
    }
}

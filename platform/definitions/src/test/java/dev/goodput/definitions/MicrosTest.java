package dev.goodput.definitions;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

class MicrosTest {
    @Test
    void roundTripsIncludingBeforeTheEpoch() {
        for (long us : new long[] {0, 1, -1, 1_764_590_400_123_456L, -1_000_001L}) {
            assertThat(Micros.of(Micros.toInstant(us))).isEqualTo(us);
        }
        assertThat(Micros.toInstant(-1)).isEqualTo(Instant.parse("1969-12-31T23:59:59.999999Z"));
        assertThat(Micros.of(Instant.parse("2026-12-01T00:00:00.000001999Z")) % 1_000_000).as("nanoseconds dropped").isEqualTo(1);
    }
}

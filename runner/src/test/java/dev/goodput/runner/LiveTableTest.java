package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LiveTableTest {

    /** A window with no OK request measured no latency: a dash, not 0.0ms, which would read as instant. */
    @Test
    void nothingMeasuredIsADash() {
        assertThat(LiveTable.ms(0, 0)).isEqualTo("-");
        assertThat(LiveTable.ms(3, 12_345)).isEqualTo("12.3ms");
    }
}

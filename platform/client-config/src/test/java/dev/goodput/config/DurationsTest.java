package dev.goodput.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void everyFormTheHelpShows() {
        assertThat(Durations.parse("30", "--d")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("2.5", "--d")).isEqualTo(Duration.ofMillis(2500));
        assertThat(Durations.parse("500ms", "--d")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("30s", "--d")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("5m", "--d")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Durations.parse("2h", "--d")).isEqualTo(Duration.ofHours(2));
        assertThat(Durations.parse("PT30S", "--d")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("-1s", "--d")).isEqualTo(Duration.ofSeconds(-1));
    }

    /** 1h30m was refused (#34): compounds of the units, each once and largest first. */
    @Test
    void compounds() {
        assertThat(Durations.parse("1h30m", "--d")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("2m30s", "--d")).isEqualTo(Duration.ofSeconds(150));
        assertThat(Durations.parse("1h0m5s", "--d")).isEqualTo(Duration.ofSeconds(3605));
        assertThat(Durations.parse("1s500ms", "--d")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("1.5h", "--d")).isEqualTo(Duration.ofMinutes(90));
    }

    /** The console's seconds: a grace under a second is not rounded to 0 (the demo printed "0 s grace" for 200ms). */
    @Test
    void secondsAreExactToTheMillisecond() {
        assertThat(Durations.seconds(Duration.ofSeconds(5))).isEqualTo("5");
        assertThat(Durations.seconds(Duration.ofMillis(2500))).isEqualTo("2.5");
        assertThat(Durations.seconds(Duration.ofMillis(200))).isEqualTo("0.2");
        assertThat(Durations.seconds(Duration.ofMillis(1))).isEqualTo("0.001");
        assertThat(Durations.seconds(Duration.ofMinutes(2))).isEqualTo("120");
        assertThat(Durations.seconds(Duration.ZERO)).isEqualTo("0");
    }

    @Test
    void anythingElseIsRefusedNamingTheFlagAndTheForms() {
        for (String bad : new String[] {"", "x", "1x", "30m1h", "1h1h", "5 minutes", "1.2.3"}) {
            assertThatThrownBy(() -> Durations.parse(bad, "--duration")).as(bad)
                    .hasMessage("--duration '" + bad + "' is not a duration (use 30, 500ms, 30s, 5m, 2h, 1h30m)");
        }
    }
}

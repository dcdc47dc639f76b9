package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.streams.StreamsSettings;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

/** A replay repeats the live run's windowing as its window records give it, and names what a what-if changes against it. */
class ReplaySettingsTest {
    private final Contract contract = ContractLoader.load(Path.of("../config/contract.yaml"));
    private final StreamsSettings defaults = StreamsSettings.defaults(Map.of(contract.id(), contract));

    @Test
    void theLiveWindowingComesFromAWindowRecord() {
        final Instant start = Instant.parse("2026-12-01T10:00:00Z");
        final var w = SampleRecords.windowStats();
        w.setWindowStartUs(start);
        w.setWindowEndUs(start.plusSeconds(30));
        w.setGraceUs(2_500_000L);
        assertThat(LiveWindowing.of(w)).isEqualTo(new LiveWindowing(Duration.ofSeconds(30), Duration.ofMillis(2_500)));
        w.setGraceUs(null);
        assertThat(LiveWindowing.of(w)).isEqualTo(new LiveWindowing(Duration.ofSeconds(30), null));
    }

    @Test
    void aReplayTakesTheLiveWindowingAndSaysSo() {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final StreamsSettings live = ReplayCommand.asLive(out, defaults,
                new LiveWindowing(Duration.ofSeconds(30), Duration.ofMillis(2_500)));
        assertThat(live.window()).isEqualTo(Duration.ofSeconds(30));
        assertThat(live.grace()).isEqualTo(Duration.ofMillis(2_500));
        assertThat(ReplayCommand.asLive(out, defaults, new LiveWindowing(Duration.ofSeconds(30), null)).grace())
                .as("records from before grace was recorded").isEqualTo(defaults.grace());
        assertThat(ReplayCommand.asLive(out, defaults, null)).isEqualTo(defaults);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("30 s windows, grace 2.5 s")
                .contains("predate grace").contains("no window records on llm.window-stats");
        // as the live run: no what-if line; a changed window is named against the live one, not the default
        assertThat(ReplayCommand.differences(live, Map.of(contract.id(), contract), live)).isEmpty();
        assertThat(ReplayCommand.differences(live.withWindow(Duration.ofSeconds(10), live.grace()),
                Map.of(contract.id(), contract), live)).containsExactly("window 30 s -> 10 s");
        // the README's what-if: --goodput ttft:100 replaces TTFT, drops TPOT and E2E, and says so
        final StreamsSettings whatIf = StreamsSettings.apply(live,
                Map.of("goodput", new dev.goodput.config.Settings.Value("ttft:100", "--goodput")));
        assertThat(ReplayCommand.differences(whatIf, Map.of(contract.id(), contract), live))
                .anySatisfy(l -> assertThat(l).startsWith("TTFT objective").endsWith("-> 100.0 ms"))
                .anySatisfy(l -> assertThat(l).startsWith("TPOT objective").contains("-> none (dropped"))
                .anySatisfy(l -> assertThat(l).startsWith("E2E objective").contains("-> none (dropped"));
        final StreamsSettings tighterTtft = StreamsSettings.apply(live,
                Map.of("goodput", new dev.goodput.config.Settings.Value("ttft:100 tpot:50 e2el:10000", "--goodput")));
        assertThat(ReplayCommand.differences(tighterTtft, Map.of(contract.id(), contract), live))
                .contains("TPOT objective 50.0 ms kept", "E2E objective 10000.0 ms kept");
    }
}

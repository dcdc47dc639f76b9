package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import dev.goodput.config.ConfigException;
import dev.goodput.topics.Topics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The streams-app's settings: defaults, then a settings file, then GOODPUT_ variables, then flags. */
class StreamsSettingsTest {

    private static StreamsSettings load(Map<String, String> env, String... args) {
        final SettingsOptions o = CommandLine.populateCommand(new SettingsOptions(), args);
        return StreamsSettings.apply(StreamsSettings.defaults(Map.of()), o.merged(env));
    }

    @Test
    void aGraceTheProducersRunsCanOutwaitIsSaidWithTheFix() {
        assertThat(load(Map.of()).graceWarning()).isEmpty();
        assertThat(load(Map.of(), "--grace", "1s").graceWarning()).isEmpty();
        assertThat(load(Map.of(), "--grace", "0s").graceWarning()).hasValueSatisfying(w -> assertThat(w)
                .startsWith("grace 0s is under 1s").contains("runs of up to 500ms").contains("refused as late")
                .endsWith("use a grace of a few seconds (--grace, or GOODPUT_GRACE; default 5s)"));
        assertThat(load(Map.of("GOODPUT_GRACE", "999ms")).graceWarning()).hasValueSatisfying(w -> assertThat(w)
                .startsWith("grace 999ms is under 1s"));
    }

    @Test
    void theDefaultsAreOnePlaceEach() {
        final StreamsSettings d = load(Map.of());
        assertThat(d.window()).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.grace()).isEqualTo(Duration.ofSeconds(5));
        assertThat(d.objectivesOverride()).isEmpty();
        assertThat(d.topics()).isEqualTo(new StreamsSettings.TopicNames(Topics.TOKENS.name(), Topics.REQUESTS.name(),
                Topics.VERDICTS.name(), Topics.WINDOW_STATS.name(), Topics.DLQ.name()));
    }

    @Test
    void fileThenEnvironmentThenFlags(@TempDir Path dir) throws Exception {
        final Path file = dir.resolve("goodput.properties");
        Files.writeString(file, "window=20s\ngrace=1s\ngoodput=ttft:300\ntopic.dlq=file.dlq\n");
        final StreamsSettings s = load(Map.of("GOODPUT_WINDOW", "30s", "GOODPUT_TOPIC_DLQ", "env.dlq"),
                "--settings", file.toString(), "--grace", "2s", "--topic", "window-stats=flag.stats");
        assertThat(s.window()).as("the variable over the file").isEqualTo(Duration.ofSeconds(30));
        assertThat(s.grace()).as("the flag over the file").isEqualTo(Duration.ofSeconds(2));
        assertThat(s.objectivesOverride().orElseThrow().ttftUs()).isEqualTo(Optional.of(300_000L));
        assertThat(s.topics().dlq()).isEqualTo("env.dlq");
        assertThat(s.topics().windowStats()).isEqualTo("flag.stats");
        assertThat(s.topics().tokens()).isEqualTo(Topics.TOKENS.name());
    }

    @Test
    void aBadValueIsRefusedNamingWhereItWasSet(@TempDir Path dir) throws Exception {
        final Path file = dir.resolve("goodput.properties");
        Files.writeString(file, "goodput=ttft:fast\n");
        assertThatThrownBy(() -> load(Map.of("GOODPUT_WINDOW", "0s"), "--settings", file.toString(), "--grace", "-1s"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("GOODPUT_WINDOW 0s: must be more than 0")
                .hasMessageContaining("--grace -1s: must be 0 or more")
                .hasMessageContaining("goodput in " + file + ": 'fast'");
        assertThatThrownBy(() -> load(Map.of(), "--grace", "-1s")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("--grace").hasMessageContaining("0 or more");
        assertThatThrownBy(() -> load(Map.of(), "--topic", "sampels=x")).hasMessageContaining("unknown topic");
    }
}

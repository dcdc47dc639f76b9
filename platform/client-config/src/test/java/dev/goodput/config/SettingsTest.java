package dev.goodput.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {
    private static final Set<String> KNOWN = Set.of("window", "grace", "topic.window-stats");

    @Test
    void fileThenEnvironmentThenFlagsEachNamingItsSource(@TempDir Path dir) throws Exception {
        final Path file = dir.resolve("goodput.properties");
        Files.writeString(file, "window=30s\ngrace=2s\ntopic.window-stats=file.stats\n");
        final Map<String, Settings.Value> m = Settings.merge(file,
                Map.of("GOODPUT_GRACE", "3s", "GOODPUT_TOPIC_WINDOW_STATS", "env.stats", "GOODPUT_KAFKA_LINGER_MS", "5",
                        "GOODPUT_JAVA_OPTS", "-Xmx1g"),
                Map.of("topic.window-stats", new Settings.Value("flag.stats", "--topic window-stats=flag.stats"),
                        "grace", new Settings.Value(null, "--grace")),
                KNOWN);
        assertThat(m).containsOnlyKeys("window", "grace", "topic.window-stats");
        assertThat(m.get("window")).isEqualTo(new Settings.Value("30s", "window in " + file));
        assertThat(m.get("grace")).as("a flag not given leaves the environment's").isEqualTo(new Settings.Value("3s", "GOODPUT_GRACE"));
        assertThat(m.get("topic.window-stats").value()).isEqualTo("flag.stats");
    }

    @Test
    void anUnknownKeyInTheFileIsRefusedNamingTheKnownOnes(@TempDir Path dir) throws Exception {
        final Path file = dir.resolve("goodput.properties");
        Files.writeString(file, "windwo=30s\n");
        assertThatThrownBy(() -> Settings.merge(file, Map.of(), Map.of(), KNOWN)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("windwo: not a setting")
                .hasMessageContaining("grace, topic.window-stats, window");
    }

    @Test
    void theVariableOfAKey() {
        assertThat(Settings.envName("topic.window-stats")).isEqualTo("GOODPUT_TOPIC_WINDOW_STATS");
    }
}

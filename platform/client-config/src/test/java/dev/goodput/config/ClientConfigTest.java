package dev.goodput.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import dev.goodput.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientConfigTest {

    @Test
    void fileThenEnvironmentThenFlagsThenDefaults(@TempDir Path dir) throws Exception {
        final Path file = dir.resolve("client.properties");
        Files.writeString(file, "bootstrap.servers=file:9092\nlinger.ms=1\nacks=1\nbatch.size=100\n");
        final Properties p = ClientConfig.merge(file,
                Map.of("GOODPUT_KAFKA_LINGER_MS", "20", "GOODPUT_KAFKA_BATCH_SIZE", "200", "PATH", "/bin", "GOODPUT_KAFKA_", "x"),
                Map.of("bootstrap.servers", "flag:9092", "batch.size", "300"),
                Map.of("bootstrap.servers", "default:9092", "compression.type", "lz4", "acks", "all"));
        assertThat(p.getProperty("bootstrap.servers")).isEqualTo("flag:9092");
        assertThat(p.getProperty("linger.ms")).isEqualTo("20");
        assertThat(p.getProperty("batch.size")).isEqualTo("300");
        assertThat(p.getProperty("acks")).isEqualTo("1");
        assertThat(p.getProperty("compression.type")).isEqualTo("lz4");
        assertThat(p).doesNotContainKey("path").doesNotContainKey("");
    }

    @Test
    void aMissingFileNamesItself(@TempDir Path dir) {
        assertThatThrownBy(() -> ClientConfig.merge(dir.resolve("nope.properties"), Map.of(), Map.of(), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("nope.properties")
                .hasMessageContaining("not found");
    }
}

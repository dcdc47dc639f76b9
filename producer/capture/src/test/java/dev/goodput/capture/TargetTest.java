package dev.goodput.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

import dev.goodput.config.Redact;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TargetTest {

    private static Target target(String url, String id) {
        return new Target(url, true, "m", null, Map.of(), id, Duration.ofSeconds(5), Duration.ofSeconds(5), false);
    }

    @Test
    void credentialsInTheUrlBecomeAHeaderAndLeaveEverythingElse() {
        final Target t = target("http://alice:pw%40x@127.0.0.1:8000/v1/", "alice:pw%40x@127.0.0.1:8000");
        assertThat(t.baseUrl()).isEqualTo("http://127.0.0.1:8000/v1");
        assertThat(t.targetId()).isEqualTo("127.0.0.1:8000");
        assertThat(t.endpoint().toString()).isEqualTo("http://127.0.0.1:8000/v1/chat/completions");
        assertThat(t.headers().get("Authorization"))
                .isEqualTo("Basic " + Base64.getEncoder().encodeToString("alice:pw@x".getBytes(StandardCharsets.UTF_8)));
        assertThat(t.secrets()).contains("pw@x");
    }

    @Test
    void aKeyFileIsReadOnceIntoTheBearerHeaderAndAGivenAuthorizationWins(@TempDir Path dir) throws IOException {
        final Path file = dir.resolve("key");
        Files.writeString(file, "sk-fromFile123456\n");
        final Target t = new Target("http://u:p@h:1/v1", true, "m", "file:" + file, Map.of("X-Team", "a"), "h:1",
                Duration.ofSeconds(5), Duration.ofSeconds(5), false);
        Files.delete(file);
        // the file is gone: every request still carries the key read at start
        assertThat(t.headers()).containsEntry("Authorization", "Bearer sk-fromFile123456").containsEntry("X-Team", "a");
        assertThat(t.secrets()).contains("sk-fromFile123456");
        assertThat(Redact.text("Incorrect API key provided: Bearer sk-fromFile123456", t.secrets()))
                .isEqualTo("Incorrect API key provided: Bearer ***");
        assertThat(t.toString()).doesNotContain("sk-fromFile123456").contains("Authorization=***");
        final Target given = new Target("http://h:1/v1", true, "m", null, Map.of("authorization", "Bearer other"), "h:1",
                Duration.ofSeconds(5), Duration.ofSeconds(5), false);
        assertThat(given.headers()).containsOnlyKeys("authorization");
    }

    @Test
    void aQueryStaysAfterThePath() {
        final Target t = target("https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21", "x");
        assertThat(t.endpoint().toString())
                .isEqualTo("https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21");
    }
}

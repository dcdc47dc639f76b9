package dev.goodput.producer.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

import org.junit.jupiter.api.Test;

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
    void aQueryStaysAfterThePath() {
        final Target t = target("https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21", "x");
        assertThat(t.endpoint().toString())
                .isEqualTo("https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21");
    }
}

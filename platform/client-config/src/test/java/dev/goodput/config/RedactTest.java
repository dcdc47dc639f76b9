package dev.goodput.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class RedactTest {

    @Test
    void urlsLoseTheirUserInfo() {
        assertThat(Redact.url("http://alice:s3cret@127.0.0.1:8000/v1?api-version=1")).isEqualTo("http://***@127.0.0.1:8000/v1?api-version=1");
        assertThat(Redact.withoutUserInfo("https://tok@example.com/v1")).isEqualTo("https://example.com/v1");
        assertThat(Redact.url("http://127.0.0.1:8000/v1")).isEqualTo("http://127.0.0.1:8000/v1");
    }

    @Test
    void errorBodiesLoseKnownSecretsAndAnythingShapedLikeOne() {
        final String body = "{\"error\":{\"message\":\"Incorrect API key provided: my-own-key-123. Header was Bearer "
                + "abcdef123456, also sk-proj-AbC123xyz789 and api_key=zzz999yyy and \\\"password\\\": \\\"hunter22\\\" "
                + "at http://bob:pw@host/\"}}";
        final String r = Redact.text(body, List.of("my-own-key-123"));
        assertThat(r).doesNotContain("my-own-key-123", "abcdef123456", "AbC123xyz789", "zzz999yyy", "hunter22", "bob:pw");
        assertThat(r).contains("Incorrect API key provided: ***", "Bearer ***", "sk-***", "api_key=***", "http://***@host/");
    }

    @Test
    void recordedCommandsMaskCredentialHeadersAndUrlUserInfo() {
        assertThat(Redact.args(List.of("demo", "--target", "http://u:p4ss@h/v1", "--header", "api-key: k3y-value",
                "--header=X-Trace=42", "--header", "Authorization=Bearer t0ken-abc", "-H", "api-key: k3y-value",
                "-Hapi-key:k3y-value")))
                .containsExactly("demo", "--target", "http://***@h/v1", "--header", "api-key:***", "--header=X-Trace=42",
                        "--header", "Authorization=***", "-H", "api-key:***", "-Hapi-key:***");
    }
}

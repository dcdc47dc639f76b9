package dev.goodput.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpServer;
import dev.goodput.capture.tokens.TokenCounter;
import org.junit.jupiter.api.Test;

/** A chat template measured where the target has no /apply-template (vLLM, SGLang): from one request's usage. */
class TargetFactsTest {

    @Test
    void withoutApplyTemplateTheTemplateIsMeasuredFromOneRequestsUsage() throws IOException {
        final HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            final boolean chat = ex.getRequestURI().getPath().equals("/v1/chat/completions");
            final byte[] body = (chat ? "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":40,"
                    + "\"completion_tokens\":1}}" : "{\"error\":\"not found\"}").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(chat ? 200 : 404, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        });
        s.start();
        try {
            final Target t = HttpFixtures.target(HttpFixtures.baseUrl(s));
            // 40 counted by the server for 3 words of content: the template adds 37
            assertThat(TargetFacts.chatTemplateTokens(t, TokenCounter.WHITESPACE, "a b c")).isEqualTo(37);
        } finally {
            s.stop(0);
        }
    }
}

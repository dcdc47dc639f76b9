package dev.goodput.capture.tokens;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The target's own tokenizer, through its {@code /tokenize} route (llama.cpp, vLLM and SGLang have
 * one, at the server's root). It is asked while prompts are sized, before the run, never on the
 * timed path. The body carries both dialects: llama.cpp's {@code content} and {@code add_special},
 * vLLM's {@code prompt} and {@code add_special_tokens}; the answer's {@code tokens} (or vLLM's
 * {@code count}) is the count.
 */
final class ServerTokenizer implements TokenCounter {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final URI uri;
    private final String model;
    private final java.util.Map<String, String> headers;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    ServerTokenizer(URI root, String model, java.util.Map<String, String> headers) {
        this.uri = root.resolve("/tokenize");
        this.model = model;
        this.headers = headers;
    }

    /** Where it asks. */
    URI uri() {
        return uri;
    }

    @Override
    public String name() {
        return TokenCounters.SERVER;
    }

    @Override
    public int count(String text, boolean special) {
        final ObjectNode body = JSON.createObjectNode().put("content", text).put("add_special", special)
                .put("prompt", text).put("add_special_tokens", special).put("model", model);
        final HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
        headers.forEach(b::header);
        final HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new TokenizerUnavailable("the target's /tokenize at " + uri + " did not answer: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TokenizerUnavailable("interrupted while asking " + uri);
        }
        if (r.statusCode() != 200) {
            throw new TokenizerUnavailable("the target's /tokenize at " + uri + " answered HTTP " + r.statusCode());
        }
        try {
            final JsonNode n = JSON.readTree(r.body());
            if (n.path("tokens").isArray()) {
                return n.get("tokens").size();
            }
            if (n.path("count").canConvertToInt()) {
                return n.get("count").intValue();
            }
        } catch (IOException e) {
            // falls through to the refusal below
        }
        throw new TokenizerUnavailable("the target's /tokenize at " + uri + " answered without a token list");
    }

    /** The target cannot count tokens for us. */
    static final class TokenizerUnavailable extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        TokenizerUnavailable(String message) {
            super(message);
        }
    }
}

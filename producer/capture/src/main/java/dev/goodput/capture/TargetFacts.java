package dev.goodput.capture;

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
import dev.goodput.capture.tokens.TokenCounter;

/**
 * What a target says about itself outside the benchmark's timed path: its build (llama.cpp's
 * {@code /props}, a {@code /version} route where one exists) and what its chat template adds to a
 * prompt (llama.cpp's {@code /apply-template}). Each is asked once, before a run; a target that
 * lacks the route gives null.
 */
public final class TargetFacts {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private TargetFacts() {
    }

    /** The server's root ({@code http://host:port}): where llama.cpp, vLLM and SGLang serve their own routes. */
    public static URI root(Target target) {
        final URI e = target.endpoint();
        return URI.create(e.getScheme() + "://" + e.getRawAuthority() + "/");
    }

    /**
     * The target's build: llama.cpp's {@code /props} build_info, else {@code /version}'s version (vLLM's
     * route; the simulator answers it too), else the {@code Server} header of its model list; null when
     * it says none of these. Never fails.
     */
    public static String version(Target target) {
        final JsonNode props = get(target, "props");
        if (props != null && props.hasNonNull("build_info")) {
            return "llama.cpp " + props.get("build_info").asText();
        }
        final JsonNode version = get(target, "version");
        if (version != null && version.path("version").isTextual()) {
            return version.get("version").asText();
        }
        try {
            final HttpRequest.Builder b = HttpRequest.newBuilder(target.modelsUri()).timeout(TIMEOUT).GET();
            target.headers().forEach(b::header);
            return HttpClient.newBuilder().connectTimeout(TIMEOUT).build().send(b.build(), HttpResponse.BodyHandlers.discarding())
                    .headers().firstValue("server").orElse(null);
        } catch (IOException | RuntimeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * The tokens the target's chat template adds around a user message with {@code content}: the
     * templated prompt's tokens (with the engine's special tokens) less the content's own, the
     * templated prompt from llama.cpp's {@code /apply-template}; where the target has none (vLLM,
     * SGLang), from the usage of one chat request of one output token. Null when neither answers.
     */
    public static Integer chatTemplateTokens(Target target, TokenCounter counter, String content) {
        final ObjectNode body = JSON.createObjectNode();
        body.putArray("messages").addObject().put("role", "user").put("content", content);
        final JsonNode r = post(target, root(target).resolve("apply-template"), body);
        if (r != null && r.path("prompt").isTextual()) {
            return counter.count(r.get("prompt").asText(), true) - counter.count(content, false);
        }
        body.put("model", target.model()).put("max_tokens", 1).put("stream", false);
        final JsonNode answer = post(target, target.endpoint(), body);
        final JsonNode prompt = answer == null ? null : answer.path("usage").path("prompt_tokens");
        return prompt != null && prompt.canConvertToInt() ? prompt.intValue() - counter.count(content, false) : null;
    }

    private static JsonNode get(Target target, String route) {
        return send(target, HttpRequest.newBuilder(root(target).resolve(route)).GET());
    }

    private static JsonNode post(Target target, URI uri, JsonNode body) {
        return send(target, HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8)));
    }

    private static JsonNode send(Target target, HttpRequest.Builder b) {
        b.timeout(TIMEOUT);
        target.headers().forEach(b::header);
        try {
            final HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()
                    .send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}

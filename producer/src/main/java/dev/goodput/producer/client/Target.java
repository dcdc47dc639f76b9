package dev.goodput.producer.client;

import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.config.Redact;

/**
 * An OpenAI-compatible streaming endpoint to benchmark.
 *
 * @param baseUrl         API base, for example {@code http://127.0.0.1:8000/v1} (vLLM, SGLang, TGI, llama.cpp, Ollama)
 * @param chat            {@code /chat/completions} when true, {@code /completions} when false
 * @param model           model name sent in every request
 * @param apiKeyFrom      where the API key is read: an environment variable's name, or {@code file:PATH}; null for
 *                        none. The key itself is never held in this record, logged, published or recorded
 * @param headers         extra request headers
 * @param targetId        deployment name stamped on request events
 * @param requestTimeout  a request still running after this is ended with status TIMEOUT
 * @param stallTimeout    a stream with no bytes for this long is ended with status TIMEOUT
 * @param continuousUsage ask for usage on every chunk ({@code stream_options.continuous_usage_stats}, vLLM), which gives tokens per chunk
 */
public record Target(String baseUrl, boolean chat, String model, String apiKeyFrom, Map<String, String> headers,
                     String targetId, Duration requestTimeout, Duration stallTimeout, boolean continuousUsage) {

    /**
     * Credentials in the URL ({@code http://user:secret@host/v1}) become an {@code Authorization:
     * Basic} header and leave the URL, so the address that is printed, stamped on events and recorded
     * in reports carries none; the target id loses them too.
     */
    public Target {
        final URI given = parse(baseUrl);
        if (!"http".equals(given.getScheme()) && !"https".equals(given.getScheme())) {
            throw new IllegalArgumentException("--target must be an http:// or https:// URL, got "
                    + Redact.url(baseUrl));
        }
        final Map<String, String> h = new LinkedHashMap<>(headers);
        if (given.getRawUserInfo() != null) {
            final String userInfo = URLDecoder.decode(given.getRawUserInfo(), StandardCharsets.UTF_8);
            // an API key given as well wins: it is the credential the user named explicitly
            final boolean keyGiven = apiKey(apiKeyFrom) != null;
            if (!keyGiven && h.keySet().stream().noneMatch(k -> k.equalsIgnoreCase("Authorization"))) {
                h.put("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        userInfo.getBytes(StandardCharsets.UTF_8)));
            }
            baseUrl = Redact.withoutUserInfo(baseUrl);
        }
        if (targetId != null && targetId.contains("@")) {
            targetId = targetId.substring(targetId.lastIndexOf('@') + 1);
        }
        final int q = baseUrl.indexOf('?');
        String path = q < 0 ? baseUrl : baseUrl.substring(0, q);
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        baseUrl = q < 0 ? path : path + baseUrl.substring(q);
        headers = Map.copyOf(h);
    }

    private static URI parse(String url) {
        try {
            return URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--target " + Redact.url(url) + " is not a URL");
        }
    }

    /** The completions endpoint; a query in the base URL ({@code ?api-version=...}) stays after the path. */
    public URI endpoint() {
        return under(chat ? "/chat/completions" : "/completions");
    }

    /** The model list ({@code GET}), with the base URL's query kept as for {@link #endpoint()}. */
    public URI modelsUri() {
        return under("/models");
    }

    private URI under(String suffix) {
        final int q = baseUrl.indexOf('?');
        final String path = (q < 0 ? baseUrl : baseUrl.substring(0, q)) + suffix;
        return URI.create(q < 0 ? path : path + baseUrl.substring(q));
    }

    /** The headers every request carries: the API key as a bearer token, then the extra headers (which win). */
    public Map<String, String> requestHeaders() {
        final Map<String, String> h = new LinkedHashMap<>();
        final String key = apiKey();
        if (key != null && !key.isEmpty()) {
            h.put("Authorization", "Bearer " + key);
        }
        headers.forEach((k, v) -> {
            h.keySet().removeIf(existing -> existing.equalsIgnoreCase(k));
            h.put(k, v);
        });
        return h;
    }

    /** The secrets this target sends (API key, credential headers): masked wherever a server echoes them. */
    public List<String> secrets() {
        final List<String> s = new ArrayList<>();
        final String key = apiKey();
        if (key != null && !key.isEmpty()) {
            s.add(key);
        }
        headers.forEach((k, v) -> {
            if (Redact.secretHeader(k)) {
                s.add(v);
                final int space = v.indexOf(' ');
                if (space > 0) {
                    s.add(v.substring(space + 1));
                }
                if (v.startsWith("Basic ")) {
                    try {
                        final String decoded = new String(Base64.getDecoder().decode(v.substring(6)),
                                StandardCharsets.UTF_8);
                        s.add(decoded);
                        if (decoded.indexOf(':') > 0) {
                            s.add(decoded.substring(decoded.indexOf(':') + 1));
                        }
                    } catch (IllegalArgumentException notBase64) {
                        // not ours to decode: the whole value is masked already
                    }
                }
            }
        });
        return s;
    }

    /** The API key from its environment variable or file, or null. */
    String apiKey() {
        return apiKey(apiKeyFrom);
    }

    private static String apiKey(String from) {
        if (from == null) {
            return null;
        }
        if (from.startsWith("file:")) {
            final Path file = Path.of(from.substring(5));
            try {
                return Files.readString(file, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new IllegalArgumentException("--api-key-file " + file + ": cannot be read (" + e.getClass()
                        .getSimpleName() + ")");
            }
        }
        return System.getenv(from);
    }
}

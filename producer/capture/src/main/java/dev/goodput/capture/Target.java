package dev.goodput.capture;

import java.io.IOException;
import java.net.URI;
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
 * @param apiKeyFrom      where the API key is read, once, here: an environment variable's name, or {@code file:PATH};
 *                        null for none. It is sent as a bearer token and never logged, published or recorded
 * @param headers         every request's headers: the extra ones given, then the credential (the API key, else the
 *                        URL's user info) as {@code Authorization} unless one was given
 * @param targetId        deployment name stamped on request events
 * @param requestTimeout  a request still running after this is ended with status TIMEOUT
 * @param stallTimeout    a stream with no bytes for this long is ended with status TIMEOUT
 * @param continuousUsage ask for usage on every chunk ({@code stream_options.continuous_usage_stats}, vLLM), which gives tokens per chunk
 */
public record Target(String baseUrl, boolean chat, String model, String apiKeyFrom, Map<String, String> headers,
                     String targetId, Duration requestTimeout, Duration stallTimeout, boolean continuousUsage) {

    /**
     * The credential is resolved once: a key read from a file is not read again per request.
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
        // an Authorization header given wins, then the API key (the credential named explicitly), then the URL's
        if (h.keySet().stream().noneMatch(k -> k.equalsIgnoreCase("Authorization"))) {
            final String key = apiKey(apiKeyFrom);
            if (key != null && !key.isEmpty()) {
                h.put("Authorization", "Bearer " + key);
            } else if (Redact.userInfo(baseUrl) != null) {
                h.put("Authorization", Redact.basicAuthorization(Redact.userInfo(baseUrl)));
            }
        }
        baseUrl = Redact.withoutUserInfo(baseUrl);
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

    /**
     * The secrets this target sends (its credential headers, the API key among them): masked wherever
     * a server echoes them. The credentials come before the whole header values, so an echoed
     * {@code Bearer <key>} reads {@code Bearer ***}, as the shape-based masking writes it too.
     */
    public List<String> secrets() {
        final List<String> credentials = new ArrayList<>();
        final List<String> values = new ArrayList<>();
        headers.forEach((k, v) -> {
            if (Redact.secretHeader(k)) {
                values.add(v);
                final int space = v.indexOf(' ');
                if (space > 0) {
                    credentials.add(v.substring(space + 1));
                }
                if (v.startsWith("Basic ")) {
                    try {
                        final String decoded = new String(Base64.getDecoder().decode(v.substring(6)),
                                StandardCharsets.UTF_8);
                        credentials.add(decoded);
                        if (decoded.indexOf(':') > 0) {
                            credentials.add(decoded.substring(decoded.indexOf(':') + 1));
                        }
                    } catch (IllegalArgumentException notBase64) {
                        // not ours to decode: the whole value is masked already
                    }
                }
            }
        });
        credentials.addAll(values);
        return credentials;
    }

    /** A target as it may be logged: credential header values masked. */
    @Override
    public String toString() {
        final Map<String, String> shown = new LinkedHashMap<>();
        headers.forEach((k, v) -> shown.put(k, Redact.secretHeader(k) ? Redact.MASK : v));
        return "Target[" + baseUrl + ", " + (chat ? "chat" : "completions") + ", model " + model + ", headers " + shown
                + ", id " + targetId + "]";
    }

    /** The API key from its environment variable or file, or null. */
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

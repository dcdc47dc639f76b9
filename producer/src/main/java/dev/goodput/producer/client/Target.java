package dev.goodput.producer.client;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * An OpenAI-compatible streaming endpoint to benchmark.
 *
 * @param baseUrl         API base, for example {@code http://127.0.0.1:8000/v1} (vLLM, SGLang, TGI, llama.cpp, Ollama)
 * @param chat            {@code /chat/completions} when true, {@code /completions} when false
 * @param model           model name sent in every request
 * @param apiKeyEnv       name of the environment variable holding the API key, or null; the key is never logged or published
 * @param headers         extra request headers
 * @param targetId        deployment name stamped on request events
 * @param requestTimeout  a request still running after this is ended with status TIMEOUT
 * @param stallTimeout    a stream with no bytes for this long is ended with status TIMEOUT
 * @param continuousUsage ask for usage on every chunk ({@code stream_options.continuous_usage_stats}, vLLM), which gives tokens per chunk
 */
public record Target(String baseUrl, boolean chat, String model, String apiKeyEnv, Map<String, String> headers,
                     String targetId, Duration requestTimeout, Duration stallTimeout, boolean continuousUsage) {

    public Target {
        if (baseUrl.endsWith("/")) {
            baseUrl = baseUrl.substring(0, baseUrl.length() - 1);
        }
        final URI uri = URI.create(baseUrl);
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
            throw new IllegalArgumentException("--target must be an http:// or https:// URL, got " + baseUrl);
        }
        headers = Map.copyOf(headers);
    }

    public URI endpoint() {
        return URI.create(baseUrl + (chat ? "/chat/completions" : "/completions"));
    }

    /** The API key from the environment, or null. */
    String apiKey() {
        return apiKeyEnv == null ? null : System.getenv(apiKeyEnv);
    }
}

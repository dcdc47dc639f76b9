package dev.goodput.report;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.ServerMetrics;
import dev.goodput.definitions.Definitions;

/**
 * The prefix cache as the engine counted it over the run, beside the client's count of the same
 * requests: the differences of the engine's own counters between the run's first sample (before
 * its first request) and its last (after every request ended), never the server's lifetime. llama.cpp
 * counts cached prompt tokens ({@code llamacpp:prompt_tokens_cached_total}) apart from evaluated ones
 * ({@code llamacpp:prompt_tokens_total}); vLLM counts the prompt tokens its prefix cache was asked
 * for and those it hit ({@code vllm:prefix_cache_queries_total}, {@code vllm:prefix_cache_hits_total}).
 * The client's side: every request of the run, warm-up included (the counters include it), whose
 * usage report said.
 *
 * @param engineCached  cached prompt tokens by the engine's counters over the run
 * @param enginePrompt  prompt tokens by the engine's counters over the run (cached and evaluated)
 * @param clientCached  cached prompt tokens the run's requests' usage reports said
 * @param clientPrompt  prompt tokens of those requests
 */
public record EngineCache(String engine, double engineCached, double enginePrompt, long clientCached, long clientPrompt,
                          long clientRequests) {

    /** The engine's hit rate over the run. */
    public double engineHitRate() {
        return enginePrompt <= 0 ? Double.NaN : engineCached / enginePrompt;
    }

    /** The client's, over the same requests ({@link Definitions#cacheHitRate}). */
    public double clientHitRate() {
        return Definitions.cacheHitRate(clientCached, clientPrompt);
    }

    /** The run's, or null when the engine's samples do not carry cache counters (or there were none). */
    public static EngineCache of(RunRecords run) {
        return of(run.serverMetrics(), run.requests());
    }

    static EngineCache of(List<ServerMetrics> all, List<RequestEvent> requests) {
        final List<ServerMetrics> samples = all.stream()
                .sorted(Comparator.comparing(ServerMetrics::getSampledAtUs)).toList();
        if (samples.size() < 2) {
            return null;
        }
        final ServerMetrics first = samples.get(0);
        final ServerMetrics last = samples.get(samples.size() - 1);
        // llama.cpp counts cached tokens apart from the evaluated ones; vLLM counts what its cache was asked and hit
        final boolean llama = "llamacpp".equals(last.getEngine());
        if (!llama && !"vllm".equals(last.getEngine())) {
            return null;
        }
        final Double cached = delta(first, last, llama ? "llamacpp:prompt_tokens_cached_total" : "vllm:prefix_cache_hits_total");
        final Double other = delta(first, last, llama ? "llamacpp:prompt_tokens_total" : "vllm:prefix_cache_queries_total");
        if (cached == null || other == null) {
            return null;
        }
        final double prompt = llama ? cached + other : other;
        long clientCached = 0;
        long clientPrompt = 0;
        long n = 0;
        for (RequestEvent e : requests) {
            if (e.getCachedPromptTokens() != null && e.getStatus() == RequestStatus.OK) {
                clientCached += e.getCachedPromptTokens();
                clientPrompt += e.getPromptTokens();
                n++;
            }
        }
        return new EngineCache(last.getEngine(), cached, prompt, clientCached, clientPrompt, n);
    }

    /** How far a counter moved between two samples, or null when either lacks it. */
    private static Double delta(ServerMetrics first, ServerMetrics last, String name) {
        final Double from = sum(first, name);
        final Double to = sum(last, name);
        return from == null || to == null ? null : to - from;
    }

    /** A counter's value summed over its label sets, or null when the sample lacks it. */
    private static Double sum(ServerMetrics m, String name) {
        Double total = null;
        for (Map.Entry<String, Double> e : m.getSamples().entrySet()) {
            final String k = e.getKey();
            if (k.equals(name) || k.startsWith(name + "{")) {
                total = (total == null ? 0 : total) + e.getValue();
            }
        }
        return total;
    }

    /** As summary.json carries it ({@code engine_cache}). */
    public Map<String, Object> json() {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("engine", engine);
        m.put("engine_cached_prompt_tokens", engineCached);
        m.put("engine_prompt_tokens", enginePrompt);
        m.put("engine_hit_rate", Double.isNaN(engineHitRate()) ? null : engineHitRate());
        m.put("client_requests", clientRequests);
        m.put("client_cached_prompt_tokens", clientCached);
        m.put("client_prompt_tokens", clientPrompt);
        m.put("client_hit_rate", Double.isNaN(clientHitRate()) ? null : clientHitRate());
        m.put("span", "the run's first engine sample to its last; requests of the run, warm-up included");
        return m;
    }
}

package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.ServerMetrics;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

/** The engine's cache counters over the run, differenced, beside the requests' own counts. */
class EngineCacheTest {

    private static ServerMetrics sample(long atMs, String engine, Map<String, Double> counters) {
        return ServerMetrics.newBuilder().setContractId("c").setRunId("run-1").setTargetId("t")
                .setSampledAtUs(SampleRecords.T0.plusMillis(atMs)).setEngine(engine).setSamples(counters).build();
    }

    private static RequestEvent request(int prompt, int cached) {
        return RequestEvent.newBuilder(SampleRecords.request()).setPromptTokens(prompt).setCachedPromptTokens(cached).build();
    }

    @Test
    void llamaCppCountsCachedTokensApartFromEvaluatedOnes() {
        // the three requests measured on llama-server: 39 evaluated; 1 evaluated, 38 cached; 43 evaluated, 39 cached
        final List<ServerMetrics> samples = List.of(
                sample(2_000, "llamacpp", Map.of("llamacpp:prompt_tokens_total", 83.0, "llamacpp:prompt_tokens_cached_total", 77.0)),
                sample(0, "llamacpp", Map.of("llamacpp:prompt_tokens_total", 0.0, "llamacpp:prompt_tokens_cached_total", 0.0)),
                sample(1_000, "llamacpp", Map.of("llamacpp:prompt_tokens_total", 40.0, "llamacpp:prompt_tokens_cached_total", 38.0)));
        final EngineCache c = EngineCache.of(samples, List.of(request(39, 0), request(39, 38), request(82, 39)));
        assertThat(c.engineCached()).isEqualTo(77.0);
        assertThat(c.enginePrompt()).isEqualTo(160.0);
        assertThat(c.engineHitRate()).isCloseTo(77.0 / 160, within(1e-12));
        assertThat(c.clientHitRate()).isCloseTo(c.engineHitRate(), within(1e-12));
    }

    @Test
    void vllmCountsItsPrefixCacheQueriesAndHitsOverLabels() {
        final List<ServerMetrics> samples = List.of(
                sample(0, "vllm", Map.of("vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"}", 1_000.0,
                        "vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"}", 100.0)),
                sample(9_000, "vllm", Map.of("vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"}", 3_000.0,
                        "vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"}", 1_100.0)));
        final EngineCache c = EngineCache.of(samples, List.of(request(2_000, 1_000)));
        assertThat(c.engineHitRate()).isEqualTo(0.5);
        assertThat(c.json()).containsEntry("engine", "vllm").containsEntry("client_hit_rate", 0.5);
    }

    @Test
    void noCountersNoFigure() {
        assertThat(EngineCache.of(List.of(sample(0, "sglang", Map.of()), sample(1, "sglang", Map.of())), List.of())).isNull();
        assertThat(EngineCache.of(List.of(sample(0, "llamacpp", Map.of("llamacpp:prompt_tokens_total", 1.0)),
                sample(1, "llamacpp", Map.of("llamacpp:prompt_tokens_total", 2.0))), List.of())).isNull();
        assertThat(EngineCache.of(List.of(), List.of())).isNull();
    }
}

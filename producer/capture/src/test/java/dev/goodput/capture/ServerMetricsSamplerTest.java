package dev.goodput.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.goodput.avro.ServerMetrics;
import org.junit.jupiter.api.Test;

/** The engines' own metric names, as their endpoints write them. */
class ServerMetricsSamplerTest {

    /** As llama-server 80fb11a writes it (abridged). */
    private static final String LLAMA_CPP = """
            # HELP llamacpp:prompt_tokens_total Number of prompt tokens processed, excluding cached tokens
            # TYPE llamacpp:prompt_tokens_total counter
            llamacpp:prompt_tokens_total 2844
            # TYPE llamacpp:tokens_predicted_total counter
            llamacpp:tokens_predicted_total 640
            # TYPE llamacpp:requests_processing gauge
            llamacpp:requests_processing 4
            # TYPE llamacpp:requests_deferred gauge
            llamacpp:requests_deferred 4
            """;

    /** As vLLM writes it: every series labelled with its model, one of them with a space in a label value. */
    private static final String VLLM = """
            # TYPE vllm:num_requests_running gauge
            vllm:num_requests_running{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 12.0
            # TYPE vllm:num_requests_waiting gauge
            vllm:num_requests_waiting{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.0
            vllm:num_requests_waiting{engine="1",model_name="a model"} 2.0
            # TYPE vllm:prompt_tokens_total counter
            vllm:prompt_tokens_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.5e+06
            # TYPE vllm:generation_tokens_total counter
            vllm:generation_tokens_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 250000.0
            python_gc_objects_collected_total{generation="0"} 1234.0
            """;

    @Test
    void llamaCppNames() {
        final ServerMetrics m = ServerMetricsSampler.parse(LLAMA_CPP, 1_000_000, "c", "r", "t");
        assertThat(m.getEngine()).isEqualTo("llamacpp");
        assertThat(m.getQueued()).isEqualTo(4.0);
        assertThat(m.getRunning()).isEqualTo(4.0);
        assertThat(m.getPromptTokensTotal()).isEqualTo(2844.0);
        assertThat(m.getGenerationTokensTotal()).isEqualTo(640.0);
        assertThat(m.getSamples()).hasSize(4).containsEntry("llamacpp:requests_deferred", 4.0);
        assertThat(m.getRunId()).isEqualTo("r");
    }

    @Test
    void vllmNamesSummedOverTheirLabelsAndOnlyTheEnginesFamiliesKept() {
        final ServerMetrics m = ServerMetricsSampler.parse(VLLM, 1_000_000, "c", "r", "t");
        assertThat(m.getEngine()).isEqualTo("vllm");
        assertThat(m.getQueued()).isEqualTo(5.0);
        assertThat(m.getRunning()).isEqualTo(12.0);
        assertThat(m.getPromptTokensTotal()).isEqualTo(1.5e6);
        assertThat(m.getGenerationTokensTotal()).isEqualTo(250_000.0);
        assertThat(m.getSamples()).hasSize(5).noneSatisfy((k, v) -> assertThat(k).startsWith("python_"));
    }

    @Test
    void sglangNamesAndAnEndpointOfNoEngine() {
        final ServerMetrics m = ServerMetricsSampler.parse("sglang:num_queue_reqs{model_name=\"m\"} 7\nsglang:num_running_reqs{model_name=\"m\"} 9\n",
                1, "c", "r", "t");
        assertThat(m.getEngine()).isEqualTo("sglang");
        assertThat(m.getQueued()).isEqualTo(7.0);
        assertThat(m.getGenerationTokensTotal()).isNull();
        assertThat(ServerMetricsSampler.parse("process_cpu_seconds_total 3.2\n", 1, "c", "r", "t")).isNull();
    }
}

package dev.goodput.report.peers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A peer tool's result file read as one side of {@code goodput compare}: its figures put in the
 * shape of a bundle's {@code summary.json} (the same paths, microseconds), what it could not
 * give, and how its definitions differ from Goodput's.
 *
 * @param kind      which tool wrote it
 * @param summary   summary.json-shaped: run_id, total, scenarios (each with scenario_id and the figures it has)
 * @param missing   the compared figures this kind of file does not hold
 * @param caveat    how the tool's definitions differ from Goodput's, in one sentence
 */
public record PeerResult(Kind kind, JsonNode summary, List<String> missing, String caveat) {

    /** The peer formats {@code compare} reads. */
    public enum Kind {
        VLLM("a vLLM bench serve result"), AIPERF("an AIPerf profile export"), GUIDELLM("a GuideLLM benchmarks.json"),
        INFERENCE_PERF("an inference-perf summary_lifecycle_metrics.json");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Reads a peer file, or returns null when the JSON is none of the peers' formats. */
    public static PeerResult read(Path file) {
        final JsonNode n;
        try {
            n = JSON.readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        final String name = file.getFileName().toString();
        if (n.has("records") && n.path("records").isObject()
                || n.path("input_config").isObject() && (n.has("time_to_first_token") || n.has("request_throughput"))) {
            return aiperf(name, n);
        }
        if (n.has("benchmarks") && n.path("benchmarks").isArray()) {
            return guidellm(name, n);
        }
        if (n.path("successes").isObject() && n.path("load_summary").isObject()) {
            return inferencePerf(name, n);
        }
        if (n.has("completed") && (n.has("mean_ttft_ms") || n.has("request_throughput"))) {
            return vllm(name, n);
        }
        return null;
    }

    static PeerResult vllm(String name, JsonNode n) {
        final ObjectNode s = JSON.createObjectNode();
        s.put("scenario_id", n.path("goodput_scenario_id").asText("vllm"));
        s.put("requests", n.path("completed").asLong() + n.path("failed").asLong());
        put(s, "output_tokens_per_s", n.path("output_throughput"), 1);
        final List<String> missing = new ArrayList<>(List.of("$ / successful 1M", "quality pass %"));
        if (n.path("request_goodput").isNumber()) {
            put(s, "goodput_rps", n.path("request_goodput"), 1);
            final double thr = n.path("request_throughput").asDouble();
            final double all = s.path("requests").asDouble() / Math.max(1e-12, n.path("duration").asDouble());
            if (thr > 0 && all > 0) {
                s.put("good_fraction", n.path("request_goodput").asDouble() / all);
            }
        } else {
            missing.addAll(List.of("goodput req/s", "good %"));
        }
        latency(s, "ttft", "p50_us", n.path("median_ttft_ms"));
        latency(s, "ttft", "p99_us", n.path("p99_ttft_ms"));
        latency(s, "itl", "p99_us", n.path("p99_itl_ms"));
        latency(s, "tpot", "p50_us", n.path("median_tpot_ms"));
        latency(s, "tpot", "p99_us", n.path("p99_tpot_ms"));
        latency(s, "e2e", "p99_us", n.path("p99_e2el_ms"));
        if (!n.path("p99_e2el_ms").isNumber()) {
            missing.add("E2E p99 ms (not selected with --percentile-metrics)");
        }
        return new PeerResult(Kind.VLLM, summary(name, List.of(s)), missing,
                "vLLM starts its clock at the actual send (Goodput at the intended send, so dispatch lateness is in Goodput's "
                        + "TTFT and E2E only) and stops TTFT at the first event with a choice, even a role-only one");
    }

    /** AIPerf's summary: metrics at the top level since October 2025, under {@code records} in v0.1.1 (tags ttft, ttst). */
    static PeerResult aiperf(String name, JsonNode n) {
        final boolean old = n.path("records").isObject();
        final JsonNode r = old ? n.path("records") : n;
        final String ttft = old ? "ttft" : "time_to_first_token";
        final ObjectNode s = JSON.createObjectNode();
        s.put("scenario_id", n.path("input_config").path("goodput_scenario_id").asText("aiperf"));
        s.put("requests", Math.round(r.path("request_count").path("avg").asDouble() + r.path("error_request_count").path("avg").asDouble()));
        put(s, "output_tokens_per_s", r.path("output_token_throughput").path("avg"), 1);
        final List<String> missing = new ArrayList<>(List.of("$ / successful 1M", "quality pass %"));
        if (r.path("goodput").path("avg").isNumber()) {
            put(s, "goodput_rps", r.path("goodput").path("avg"), 1);
            final double duration = r.path("benchmark_duration").path("avg").asDouble();
            if (duration > 0 && s.path("requests").asLong() > 0) {
                s.put("good_fraction", r.path("goodput").path("avg").asDouble() * duration / s.path("requests").asLong());
            }
        } else {
            missing.addAll(List.of("goodput req/s", "good %"));
        }
        latency(s, "ttft", "p50_us", r.path(ttft).path("p50"));
        latency(s, "ttft", "p99_us", r.path(ttft).path("p99"));
        // AIPerf's inter-chunk latency is Goodput's ITL; AIPerf's inter-token latency is Goodput's TPOT
        latency(s, "itl", "p99_us", r.path("inter_chunk_latency").path("p99"));
        latency(s, "tpot", "p50_us", r.path("inter_token_latency").path("p50"));
        latency(s, "tpot", "p99_us", r.path("inter_token_latency").path("p99"));
        latency(s, "e2e", "p99_us", r.path("request_latency").path("p99"));
        if (!r.path("inter_chunk_latency").path("p99").isNumber()) {
            missing.add("ITL p99 ms (no inter_chunk_latency record)");
        }
        return new PeerResult(Kind.AIPERF, summary(name, List.of(s)), missing,
                "AIPerf starts its clock at the actual send (Goodput at the intended send); its inter_token_latency is Goodput's TPOT "
                        + "and its inter_chunk_latency Goodput's ITL");
    }

    /**
     * inference-perf's request-lifecycle summary (seconds): {@code inter_token_latency} is pooled per
     * gap (Goodput's ITL), {@code time_per_output_token} per request after the first token (TPOT).
     */
    static PeerResult inferencePerf(String name, JsonNode n) {
        final JsonNode ok = n.path("successes");
        final JsonNode lat = ok.path("latency");
        final ObjectNode s = JSON.createObjectNode();
        s.put("scenario_id", "inference-perf");
        s.put("requests", ok.path("count").asLong() + n.path("failures").path("count").asLong());
        put(s, "output_tokens_per_s", ok.path("throughput").path("output_tokens_per_sec"), 1);
        latency(s, "ttft", "p50_us", seconds(lat.path("time_to_first_token").path("median")));
        latency(s, "ttft", "p99_us", seconds(lat.path("time_to_first_token").path("p99")));
        latency(s, "itl", "p99_us", seconds(lat.path("inter_token_latency").path("p99")));
        latency(s, "tpot", "p50_us", seconds(lat.path("time_per_output_token").path("median")));
        latency(s, "tpot", "p99_us", seconds(lat.path("time_per_output_token").path("p99")));
        latency(s, "e2e", "p99_us", seconds(lat.path("request_latency").path("p99")));
        return new PeerResult(Kind.INFERENCE_PERF, summary(name, List.of(s)),
                List.of("$ / successful 1M", "quality pass %", "goodput req/s", "good %"),
                "inference-perf starts its clock at the actual send (Goodput at the intended send; its schedule_delay is the "
                        + "difference); its inter_token_latency is Goodput's ITL and its time_per_output_token Goodput's TPOT");
    }

    private static JsonNode seconds(JsonNode v) {
        return v.isNumber() ? JSON.getNodeFactory().numberNode(v.asDouble() * 1000) : v;
    }

    static PeerResult guidellm(String name, JsonNode n) {
        final List<ObjectNode> scenarios = new ArrayList<>();
        int i = 0;
        for (JsonNode b : n.path("benchmarks")) {
            final JsonNode m = b.path("metrics");
            final ObjectNode s = JSON.createObjectNode();
            final JsonNode strategy = b.path("config").path("strategy");
            s.put("scenario_id", b.path("config").path("goodput_scenario_id").asText(String.format(Locale.ROOT, "benchmark %d (%s)", i,
                    strategy.path("type_").asText("?"))));
            s.put("requests", m.path("request_totals").path("total").asLong());
            put(s, "output_tokens_per_s", m.path("output_tokens_per_second").path("successful").path("mean"), 1);
            latency(s, "ttft", "p50_us", m.path("time_to_first_token_ms").path("successful").path("percentiles").path("p50"));
            latency(s, "ttft", "p99_us", m.path("time_to_first_token_ms").path("successful").path("percentiles").path("p99"));
            // GuideLLM's inter_token_latency_ms is per request, (last - first) / (tokens - 1): Goodput's TPOT
            latency(s, "tpot", "p50_us", m.path("inter_token_latency_ms").path("successful").path("percentiles").path("p50"));
            latency(s, "tpot", "p99_us", m.path("inter_token_latency_ms").path("successful").path("percentiles").path("p99"));
            final JsonNode e2e = m.path("request_latency").path("successful").path("percentiles").path("p99");
            if (e2e.isNumber()) {
                latency(s, "e2e", "p99_us", JSON.getNodeFactory().numberNode(e2e.asDouble() * 1000));
            }
            scenarios.add(s);
            i++;
        }
        return new PeerResult(Kind.GUIDELLM, summary(name, scenarios),
                List.of("$ / successful 1M", "quality pass %", "goodput req/s", "good %", "ITL p99 ms (GuideLLM has no per-chunk gaps)"),
                "GuideLLM starts its clock at the actual send (Goodput at the intended send); its inter_token_latency_ms is "
                        + "Goodput's TPOT, and its time_per_output_token_ms includes the first token");
    }

    private static JsonNode summary(String name, List<ObjectNode> scenarios) {
        final ObjectNode root = JSON.createObjectNode();
        root.put("run_id", name);
        final ArrayNode list = root.putArray("scenarios");
        scenarios.forEach(list::add);
        if (scenarios.size() == 1) {
            root.set("total", scenarios.get(0));
        }
        return root;
    }

    private static void put(ObjectNode s, String field, JsonNode v, double scale) {
        if (v.isNumber()) {
            s.put(field, v.asDouble() * scale);
        }
    }

    /** A latency figure in milliseconds (as the peers write them), stored in microseconds (as summary.json holds them). */
    private static void latency(ObjectNode s, String metric, String field, JsonNode ms) {
        if (ms.isNumber()) {
            final ObjectNode lat = s.has("latency") ? (ObjectNode) s.get("latency") : s.putObject("latency");
            final ObjectNode m = lat.has(metric) ? (ObjectNode) lat.get(metric) : lat.putObject(metric);
            m.put(field, ms.asDouble() * 1000);
        }
    }
}

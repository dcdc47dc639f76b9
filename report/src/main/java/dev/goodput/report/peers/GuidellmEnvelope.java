package dev.goodput.report.peers;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.goodput.avro.RunSummary;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Micros;
import dev.goodput.report.peers.GuidellmReport.Stats;

/**
 * What GuideLLM's report schema version 2 (GuideLLM 0.7.0 and later; {@code GenerativeBenchmarksReport})
 * requires around the metrics: the report's metadata and run config, each benchmark's config,
 * scheduler state and scheduler averages, and each request's {@code info} (its timings, from which
 * GuideLLM itself recomputes TTFT, ITL and the rest on load) and usage metrics.
 *
 * <p>Goodput's send loop maps onto GuideLLM's scheduler as: targeted start = intended send,
 * request start = actual send, so {@code request_targeted_start_delay_avg} is Goodput's dispatch
 * lateness. Goodput has no worker queue or result pipeline, so the averages of GuideLLM's
 * queueing, resolve-end, finalize and process delays are 0 and said to be so in the config.
 */
final class GuidellmEnvelope {

    /** The GuideLLM release whose report models these files are checked against. */
    static final String SCHEMA_OF = "GuideLLM 0.8.0.dev0 (ee7a774), report schema 2";

    private GuidellmEnvelope() {
    }

    static Map<String, Object> metadata(String runId, Contract contract, String goodputVersion) {
        final Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("version", 2);
        // not a GuideLLM release: the producer says who wrote it, the string which schema it follows
        meta.put("guidellm_version", "none: written by goodput " + goodputVersion + " in the layout of " + SCHEMA_OF);
        meta.put("python_version", "none (java " + System.getProperty("java.version") + ")");
        meta.put("platform", System.getProperty("os.name") + "-" + System.getProperty("os.arch"));
        meta.put("producer", "goodput " + goodputVersion);
        meta.put("goodput_run_id", runId);
        meta.put("goodput_contract_id", contract.id());
        return meta;
    }

    /** The run's config ({@code BenchmarkScenario}): backend, the first scenario's profile, the data. */
    static Map<String, Object> config(List<RunSummary> scenarios, Contract contract, String target, String endpoint) {
        final Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("backend", backend(contract, target, endpoint));
        if (!scenarios.isEmpty()) {
            spec.put("profile", profile(scenarios.get(0)));
        }
        final Map<String, Object> tokenizer = new LinkedHashMap<>();
        tokenizer.put("kind", "hf_auto");
        tokenizer.put("model", contract.tokenizerName());
        spec.put("tokenizer", tokenizer);
        // the contract's prompt corpus is a JSON-lines file; without one, the prompts were synthetic
        final Map<String, Object> data = new LinkedHashMap<>();
        if (contract.corpus() != null && contract.corpus().path() != null) {
            data.put("kind", "json_file");
            data.put("path", contract.corpus().path());
        } else {
            data.put("kind", "synthetic_text");
            data.put("output_tokens", contract.outputCapTokens());
        }
        spec.put("data", List.of(data));
        final Map<String, Object> c = new LinkedHashMap<>();
        c.put("metadata", Map.of("labels", Map.of("producer", "goodput", "contract_id", contract.id())));
        c.put("spec", spec);
        // GuideLLM keeps per-benchmark overrides here, null where none (one per benchmark)
        c.put("benchmarks", java.util.Collections.nCopies(scenarios.size(), null));
        return c;
    }

    static Map<String, Object> backend(Contract contract, String target, String endpoint) {
        final Map<String, Object> b = new LinkedHashMap<>();
        b.put("kind", "openai_http");
        b.put("target", target);
        b.put("model", contract.modelName());
        b.put("request_format", "completions".equals(endpoint) ? "/v1/completions" : "/v1/chat/completions");
        b.put("stream", true);
        return b;
    }

    static Map<String, Object> profile(RunSummary s) {
        final Map<String, Object> p = new LinkedHashMap<>();
        final Map<String, Object> strategy = strategy(s);
        p.put("kind", strategy.get("type_"));
        strategy.forEach((k, v) -> {
            if (!k.equals("type_")) {
                p.put(k, List.of(v));
            }
        });
        return p;
    }

    static Map<String, Object> strategy(RunSummary s) {
        final Map<String, Object> strategy = new LinkedHashMap<>();
        if (s.getRateRps() != null && s.getRateRps() > 0) {
            strategy.put("type_", s.getArrival().toLowerCase(Locale.ROOT).startsWith("poisson") ? "poisson" : "constant");
            strategy.put("rate", s.getRateRps());
        } else {
            strategy.put("type_", "concurrent");
            strategy.put("streams", s.getConcurrency());
        }
        return strategy;
    }

    /** A benchmark's config ({@code BenchmarkConfig}). */
    static Map<String, Object> benchmarkConfig(String runId, int index, RunSummary s, Contract contract, String endpoint) {
        final Map<String, Object> c = new LinkedHashMap<>();
        c.put("id_", runId + "/" + s.getScenarioId());
        c.put("run_id", runId);
        c.put("run_index", index);
        c.put("strategy", strategy(s));
        c.put("constraints", Map.of());
        c.put("profile", profile(s));
        final Map<String, Object> requests = new LinkedHashMap<>();
        requests.put("kind", "goodput_scenario");
        requests.put("scenario_id", s.getScenarioId());
        requests.put("requests", s.getRequests());
        c.put("requests", requests);
        c.put("backend", backend(contract, s.getTargetId(), endpoint));
        final Map<String, Object> env = new LinkedHashMap<>();
        env.put("type", "goodput");
        env.put("note", "one Goodput generator; no worker queue, so GuideLLM's queue, finalize and process delays are 0");
        c.put("environment", env);
        c.put("goodput_scenario_id", s.getScenarioId());
        c.put("goodput_arrival", s.getArrival());
        return c;
    }

    /** The scheduler's end state ({@code SchedulerState}): its times and request counts. */
    static Map<String, Object> schedulerState(RunSummary s, Map<String, List<Stats>> by, double measureStart, double measureEnd) {
        final Map<String, Object> st = new LinkedHashMap<>();
        final int ok = by.get("successful").size();
        final int errored = by.get("errored").size();
        final int cancelled = by.get("incomplete").size();
        st.put("node_id", 0);
        st.put("num_processes", 1);
        st.put("start_time", Micros.of(s.getStartedUs()) / 1e6);
        st.put("end_time", Micros.of(s.getEndedUs()) / 1e6);
        st.put("start_requests_time", measureStart);
        st.put("end_requests_time", measureEnd);
        st.put("created_requests", ok + errored + cancelled);
        st.put("queued_requests", 0);
        st.put("pending_requests", 0);
        st.put("processing_requests", 0);
        st.put("processed_requests", ok + errored + cancelled);
        st.put("successful_requests", ok);
        st.put("errored_requests", errored);
        st.put("cancelled_requests", cancelled);
        return st;
    }

    /** The scheduler's averages ({@code SchedulerMetrics}), in seconds, over every request. */
    static void schedulerAverages(Map<String, Object> sched, List<Stats> all) {
        double late = 0;
        double time = 0;
        for (Stats x : all) {
            late += (x.startUs() - x.intendedUs()) / 1e6;
            time += x.latency();
        }
        final double n = Math.max(1, all.size());
        sched.put("queued_time_avg", 0.0);
        sched.put("resolve_start_delay_avg", late / n);
        sched.put("resolve_targeted_start_delay_avg", late / n);
        sched.put("request_start_delay_avg", late / n);
        sched.put("request_targeted_start_delay_avg", late / n);
        sched.put("request_time_avg", time / n);
        sched.put("resolve_end_delay_avg", 0.0);
        sched.put("resolve_time_avg", time / n);
        sched.put("finalized_delay_avg", 0.0);
        sched.put("processed_delay_avg", 0.0);
    }

    /** A request's {@code info}: status and the timings GuideLLM derives every per-request figure from. */
    static Map<String, Object> info(Stats x, double schedulerStart) {
        final Map<String, Object> t = new LinkedHashMap<>();
        t.put("targeted_start", x.intendedUs() / 1e6);
        t.put("queued", null);
        t.put("dequeued", null);
        t.put("scheduled_at", x.intendedUs() / 1e6);
        t.put("resolve_start", x.start());
        t.put("request_start", x.start());
        t.put("first_request_iteration", x.firstToken());
        t.put("first_token_iteration", x.firstToken());
        t.put("first_output_token_iteration", x.firstOutputTokenUs() == null ? null : x.firstOutputTokenUs() / 1e6);
        t.put("last_token_iteration", x.lastTokenUs() == null ? null : x.lastTokenUs() / 1e6);
        t.put("last_request_iteration", x.lastTokenUs() == null ? null : x.lastTokenUs() / 1e6);
        t.put("request_iterations", x.iterations());
        t.put("token_iterations", x.firstTokenUs() == null ? 0 : x.iterations());
        t.put("request_end", x.end());
        t.put("resolve_end", x.end());
        t.put("finalized", x.end());
        final Map<String, Object> info = new LinkedHashMap<>();
        info.put("request_id", x.requestId());
        info.put("status", switch (x.status()) {
            case "successful" -> "completed";
            case "incomplete" -> "cancelled";
            default -> "errored";
        });
        info.put("scheduler_node_id", 0);
        info.put("scheduler_process_id", 0);
        info.put("scheduler_start_time", schedulerStart);
        info.put("timings", t);
        info.put("error", x.error());
        return info;
    }

    /** GuideLLM's usage metrics of one side of a request: Goodput counts tokens only. */
    static Map<String, Object> usage(int tokens) {
        final Map<String, Object> u = new LinkedHashMap<>();
        u.put("text_tokens", tokens);
        u.put("total_tokens", tokens);
        return u;
    }

    /** The modality summaries GuideLLM requires; Goodput measures none of them (text words and characters included). */
    static void modalities(Map<String, Object> metrics) {
        final List<String> fields = List.of("input", "input_per_second", "input_concurrency", "output", "output_per_second",
                "output_concurrency", "total", "total_per_second", "total_concurrency");
        final Map<String, List<String>> kinds = new LinkedHashMap<>();
        kinds.put("text", List.of("tokens", "words", "characters"));
        kinds.put("image", List.of("tokens", "images", "pixels", "bytes"));
        kinds.put("video", List.of("tokens", "frames", "seconds", "bytes"));
        kinds.put("audio", List.of("tokens", "samples", "seconds", "bytes"));
        kinds.put("tool_call", List.of("tokens", "mixed_tokens", "count"));
        kinds.forEach((kind, names) -> {
            final Map<String, Object> k = new LinkedHashMap<>();
            for (String name : names) {
                if (kind.equals("text")) {
                    k.put(name, null);
                } else {
                    final Map<String, Object> empty = new HashMap<>();
                    fields.forEach(f -> empty.put(f, null));
                    k.put(name, empty);
                }
            }
            metrics.put(kind, k);
        });
    }
}

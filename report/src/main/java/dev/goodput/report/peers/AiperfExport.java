package dev.goodput.report.peers;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.RunSummary;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Conventions;

/**
 * A scenario as NVIDIA AIPerf's profile export writes it since October 2025 (ai-dynamo/aiperf #343):
 * {@code profile_export_aiperf.json} (each metric at the top level under its tag: unit, avg, p1 ...
 * p99, min, max, std; single values unit and avg only; the model's other metrics null),
 * {@code profile_export_aiperf.csv} (the same, two tables) and {@code profile_export.jsonl} (one
 * line per request, AIPerf's {@code MetricRecordInfo}), under AIPerf's definitions (see {@link Conventions}): clock from the actual
 * send, ITL per request = (latency - TTFT) / (output tokens - 1), inter-chunk latency the pooled
 * gaps. Reasoning and answer tokens are not split (AIPerf's reasoning/output token counts are left out).
 */
public final class AiperfExport {

    private static final double[] PCTS = {1, 5, 10, 25, 50, 75, 90, 95, 99};

    /** A metric's tag, header and unit, as AIPerf names them. */
    record Metric(String tag, String header, String unit) {
    }

    static final Metric TTFT = new Metric("time_to_first_token", "Time to First Token", "ms");
    static final Metric TTST = new Metric("time_to_second_token", "Time to Second Token", "ms");
    static final Metric LATENCY = new Metric("request_latency", "Request Latency", "ms");
    static final Metric ITL = new Metric("inter_token_latency", "Inter Token Latency", "ms");
    static final Metric ICL = new Metric("inter_chunk_latency", "Inter Chunk Latency", "ms");
    static final Metric ISL = new Metric("input_sequence_length", "Input Sequence Length", "tokens");
    static final Metric OSL = new Metric("output_sequence_length", "Output Sequence Length", "tokens");
    static final Metric PER_USER = new Metric("output_token_throughput_per_user", "Output Token Throughput Per User",
            "tokens/sec/user");
    static final Metric REQUESTS = new Metric("request_count", "Request Count", "requests");
    static final Metric ERRORS = new Metric("error_request_count", "Error Request Count", "requests");
    static final Metric MIN_TS = new Metric("min_request_timestamp", "Minimum Request Timestamp", "ns");
    static final Metric MAX_TS = new Metric("max_response_timestamp", "Maximum Response Timestamp", "ns");
    static final Metric DURATION = new Metric("benchmark_duration", "Benchmark Duration", "sec");
    static final Metric TOTAL_ISL = new Metric("total_isl", "Total Input Sequence Length", "tokens");
    static final Metric TOTAL_OSL = new Metric("total_osl", "Total Output Sequence Length", "tokens");
    static final Metric THROUGHPUT = new Metric("request_throughput", "Request Throughput", "requests/sec");
    static final Metric TOKEN_THROUGHPUT = new Metric("output_token_throughput", "Output Token Throughput", "tokens/sec");
    static final Metric GOODPUT = new Metric("goodput", "Goodput", "requests/sec");
    static final Metric GOOD_COUNT = new Metric("good_request_count", "Good Request Count", "requests");
    static final Metric OUTPUT_COUNT = new Metric("output_token_count", "Output Token Count", "tokens");
    static final Metric TOTAL_OUTPUT = new Metric("total_output_tokens", "Total Output Tokens", "tokens");

    /** The metrics of AIPerf's {@code JsonExportData}, in the order it writes them (absent ones are null). */
    private static final List<String> SUMMARY_ORDER = List.of("request_throughput", "request_latency", "request_count",
            "time_to_first_token", "time_to_second_token", "inter_token_latency", "output_token_throughput",
            "output_token_throughput_per_user", "output_sequence_length", "input_sequence_length", "goodput", "good_request_count",
            "output_token_count", "reasoning_token_count", "min_request_timestamp", "max_response_timestamp", "inter_chunk_latency",
            "total_output_tokens", "total_reasoning_tokens", "benchmark_duration", "total_isl", "total_osl", "error_request_count",
            "error_isl", "total_error_isl");

    /** The three files of one scenario. */
    record Files(Map<String, Object> json, String csv, String jsonl) {
    }

    private AiperfExport() {
    }

    static Files of(String runId, RunSummary scenario, Contract contract, String target, String endpoint, String command,
                    List<Exchange> xs) throws JsonProcessingException {
        final Map<Metric, List<Double>> dist = new LinkedHashMap<>();
        for (Metric m : List.of(TTFT, TTST, LATENCY, ITL, ICL, ISL, OSL, OUTPUT_COUNT, PER_USER)) {
            dist.put(m, new ArrayList<>());
        }
        final StringBuilder jsonl = new StringBuilder();
        final ObjectMapper compact = new ObjectMapper();
        long ok = 0;
        long good = 0;
        long totalIsl = 0;
        long totalOsl = 0;
        long minRequestNs = Long.MAX_VALUE;
        long maxResponseNs = Long.MIN_VALUE;
        final Map<String, Long> errors = new LinkedHashMap<>();
        final Map<String, Map<String, Object>> errorDetails = new LinkedHashMap<>();
        int session = 0;
        for (Exchange x : xs) {
            final Map<String, Object> line = new LinkedHashMap<>();
            final Map<String, Object> meta = new LinkedHashMap<>();
            meta.put("session_num", session++);
            meta.put("x_request_id", x.event().getRequestId());
            meta.put("x_correlation_id", x.event().getRequestId() + "#" + x.event().getAttempt());
            meta.put("conversation_id", x.event().getRequestId());
            meta.put("turn_index", 0);
            meta.put("request_start_ns", x.actualSendUs() * 1000);
            meta.put("request_ack_ns", null);
            meta.put("request_end_ns", x.completionUs() * 1000);
            meta.put("worker_id", "goodput");
            meta.put("record_processor_id", "goodput");
            meta.put("benchmark_phase", "profiling");
            meta.put("was_cancelled", x.event().getStatus() == dev.goodput.avro.RequestStatus.ABANDONED);
            meta.put("cancellation_time_ns", null);
            line.put("metadata", meta);
            final Map<String, Object> metrics = new LinkedHashMap<>();
            if (x.ok()) {
                final Conventions.Measures v = x.measures();
                ok++;
                final long sendNs = x.actualSendUs() * 1000;
                final long lastNs = (x.actualSendUs() + Math.round(v.e2eUs())) * 1000;
                minRequestNs = Math.min(minRequestNs, sendNs);
                maxResponseNs = Math.max(maxResponseNs, lastNs);
                totalIsl += x.event().getPromptTokens();
                totalOsl += v.outputTokens();
                value(metrics, dist, LATENCY, v.e2eUs() / 1e3);
                value(metrics, dist, OSL, v.outputTokens());
                value(metrics, dist, TTFT, v.ttftUs() / 1e3);
                value(metrics, dist, OUTPUT_COUNT, v.outputTokens());
                value(metrics, dist, ISL, x.event().getPromptTokens());
                if (v.gapsUs().length > 0) {
                    value(metrics, dist, TTST, v.gapsUs()[0] / 1e3);
                    final List<Double> gaps = new ArrayList<>();
                    for (long g : v.gapsUs()) {
                        gaps.add(g / 1e3);
                        dist.get(ICL).add(g / 1e3);
                    }
                    metrics.put(ICL.tag(), kv("value", gaps, "unit", ICL.unit()));
                }
                if (!Double.isNaN(v.tpotUs())) {
                    value(metrics, dist, ITL, v.tpotUs() / 1e3);
                    if (v.tpotUs() > 0) {
                        value(metrics, dist, PER_USER, 1e6 / v.tpotUs());
                    }
                }
                if (Conventions.good(Conventions.Tool.AIPERF, v, contract.objectives(), true)) {
                    good++;
                }
                line.put("metrics", metrics);
                line.put("error", null);
            } else {
                metrics.put(ERRORS.tag(), kv("value", 1, "unit", ERRORS.unit()));
                line.put("metrics", metrics);
                final Map<String, Object> err = new LinkedHashMap<>();
                err.put("code", x.event().getHttpStatus());
                err.put("type", x.event().getErrorClass() != null ? x.event().getErrorClass()
                        : x.event().getStatus().name().toLowerCase(Locale.ROOT));
                err.put("message", x.event().getErrorMessage() != null ? x.event().getErrorMessage() : x.error());
                line.put("error", err);
                final String key = err.get("code") + "|" + err.get("type") + "|" + err.get("message");
                errors.merge(key, 1L, Long::sum);
                errorDetails.putIfAbsent(key, err);
            }
            jsonl.append(compact.writeValueAsString(line)).append('\n');
        }
        final double duration = ok == 0 ? 0 : (maxResponseNs - minRequestNs) / 1e9;
        final Map<Metric, Double> scalars = new LinkedHashMap<>();
        scalars.put(THROUGHPUT, duration <= 0 ? 0 : ok / duration);
        scalars.put(REQUESTS, (double) ok);
        scalars.put(TOKEN_THROUGHPUT, duration <= 0 ? 0 : totalOsl / duration);
        if (VllmResult.hasObjectives(contract.objectives())) {
            scalars.put(GOODPUT, duration <= 0 ? 0 : good / duration);
            scalars.put(GOOD_COUNT, (double) good);
        }
        if (ok > 0) {
            scalars.put(MIN_TS, (double) minRequestNs);
            scalars.put(MAX_TS, (double) maxResponseNs);
        }
        scalars.put(TOTAL_OUTPUT, (double) totalOsl);
        scalars.put(DURATION, duration);
        scalars.put(TOTAL_ISL, (double) totalIsl);
        scalars.put(TOTAL_OSL, (double) totalOsl);
        if (xs.size() > ok) {
            scalars.put(ERRORS, (double) (xs.size() - ok));
        }

        final Map<String, Map<String, Object>> present = new LinkedHashMap<>();
        final Map<String, String> headers = new LinkedHashMap<>();
        dist.forEach((m, values) -> {
            if (!values.isEmpty()) {
                present.put(m.tag(), distribution(m, Numpy.sorted(values)));
                headers.put(m.tag(), m.header());
            }
        });
        scalars.forEach((m, v) -> {
            present.put(m.tag(), kv("unit", m.unit(), "avg", v));
            headers.put(m.tag(), m.header());
        });
        final Map<String, Object> json = new LinkedHashMap<>();
        for (String tag : SUMMARY_ORDER) {
            json.put(tag, present.get(tag));
        }
        final Map<String, Object> endpointCfg = new LinkedHashMap<>();
        endpointCfg.put("model_names", List.of(contract.modelName()));
        endpointCfg.put("type", "completions".equals(endpoint) ? "completions" : "chat");
        endpointCfg.put("streaming", true);
        endpointCfg.put("url", target);
        final Map<String, Object> loadgen = new LinkedHashMap<>();
        if (scenario.getRateRps() != null && scenario.getRateRps() > 0) {
            loadgen.put("request_rate", scenario.getRateRps());
        }
        if (scenario.getConcurrency() != null) {
            loadgen.put("concurrency", scenario.getConcurrency());
        }
        loadgen.put("request_count", xs.size());
        final Map<String, Object> input = new LinkedHashMap<>();
        input.put("endpoint", endpointCfg);
        input.put("loadgen", loadgen);
        input.put("cli_command", command);
        input.put("goodput_run_id", runId);
        input.put("goodput_scenario_id", scenario.getScenarioId());
        input.put("goodput_contract_id", contract.id());
        json.put("input_config", input);
        json.put("was_cancelled", false);
        final List<Object> summary = new ArrayList<>();
        errors.forEach((k, n) -> summary.add(kv("error_details", errorDetails.get(k), "count", n)));
        json.put("error_summary", summary);
        json.put("start_time", iso(xs.isEmpty() ? scenario.getStartedUs() : xs.get(0).event().getActualSendTimeUs()));
        json.put("end_time", iso(scenario.getEndedUs()));
        return new Files(json, csv(present, headers), jsonl.toString());
    }

    private static void value(Map<String, Object> metrics, Map<Metric, List<Double>> dist, Metric m, double v) {
        metrics.put(m.tag(), kv("value", v == Math.rint(v) && m.unit().equals("tokens") ? (Object) (long) v : (Object) v,
                "unit", m.unit()));
        dist.get(m).add(v);
    }

    /** A two-entry map in the order written. */
    static Map<String, Object> kv(String k1, Object v1, String k2, Object v2) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }

    /** A distribution as AIPerf's {@code JsonMetricResult} holds it: unit, avg, p1 ... p99, min, max, std. */
    private static Map<String, Object> distribution(Metric m, double[] a) {
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("unit", m.unit());
        r.put("avg", Numpy.mean(a));
        for (double p : PCTS) {
            r.put("p" + (int) p, Numpy.percentile(a, p));
        }
        r.put("min", a[0]);
        r.put("max", a[a.length - 1]);
        r.put("std", Numpy.std(a));
        return r;
    }

    /** AIPerf's CSV: the distributions, then the single values, each table by header. */
    static String csv(Map<String, Map<String, Object>> metrics, Map<String, String> headers) {
        final List<String> tags = metrics.keySet().stream().sorted(Comparator.comparing(headers::get)).toList();
        final StringBuilder sb = new StringBuilder("Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\n");
        for (String tag : tags) {
            final Map<String, Object> r = metrics.get(tag);
            if (r.containsKey("min")) {
                sb.append(headers.get(tag)).append(" (").append(r.get("unit")).append(')');
                for (String k : List.of("avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std")) {
                    sb.append(',').append(String.format(Locale.ROOT, "%.2f", ((Number) r.get(k)).doubleValue()));
                }
                sb.append('\n');
            }
        }
        sb.append("\nMetric,Value\n");
        for (String tag : tags) {
            final Map<String, Object> r = metrics.get(tag);
            if (!r.containsKey("min")) {
                // AIPerf leaves a count's unit out of the label: "Request Count", "Error Request Count"
                sb.append(headers.get(tag)).append("requests".equals(r.get("unit")) ? "" : " (" + r.get("unit") + ")").append(',')
                        .append(String.format(Locale.ROOT, "%.2f", ((Number) r.get("avg")).doubleValue())).append('\n');
            }
        }
        return sb.toString();
    }

    private static String iso(Instant t) {
        return LocalDateTime.ofInstant(t, ZoneOffset.UTC).toString();
    }
}

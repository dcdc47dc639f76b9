package dev.goodput.report.peers;

import static dev.goodput.report.peers.GuidellmDistribution.w;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RunSummary;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Micros;
import dev.goodput.report.peers.GuidellmDistribution.Weighted;

/**
 * A run as GuideLLM's {@code benchmarks.json} holds it: one generative benchmark per scenario, each
 * with GuideLLM's metrics (request totals; distributions of rates, concurrency, latency, token
 * counts, TTFT, TPOT and ITL by status: successful, incomplete, errored, total) under GuideLLM's
 * definitions (guidellm/schemas/request_stats.py): clock from the actual send; TPOT = (last token -
 * start) / output tokens, including the first; ITL = (last token - first token) / (output tokens - 1);
 * request latency in seconds. Abandoned requests are GuideLLM's incomplete ones, errors and timeouts
 * its errored ones. GuideLLM's text/image/video/audio/tool-call summaries and scheduler internals
 * are left out: Goodput does not measure them.
 */
public final class GuidellmReport {

    /**
     * A request as GuideLLM's request stats describe it. Times are kept in microseconds since the
     * epoch, so that differences are exact; GuideLLM's seconds are derived from them.
     */
    record Stats(String requestId, String status, long intendedUs, long startUs, long endUs, Long firstTokenUs, Long firstOutputTokenUs,
                 Long lastTokenUs, int iterations, int promptTokens, int outputTokens, String error) {

        double start() {
            return startUs / 1e6;
        }

        double end() {
            return endUs / 1e6;
        }

        Double firstToken() {
            return firstTokenUs == null ? null : firstTokenUs / 1e6;
        }

        double latency() {
            return (endUs - startUs) / 1e6;
        }

        Double ttftMs() {
            return firstTokenUs == null ? null : (firstTokenUs - startUs) / 1e3;
        }

        Double ttfotMs() {
            return firstOutputTokenUs == null ? null : (firstOutputTokenUs - startUs) / 1e3;
        }

        Double tpotMs() {
            final long last = lastTokenUs != null ? lastTokenUs : endUs;
            return outputTokens == 0 ? null : (last - startUs) / 1e3 / outputTokens;
        }

        Double itlMs() {
            return firstTokenUs == null || lastTokenUs == null || outputTokens <= 1 ? null
                    : (lastTokenUs - firstTokenUs) / 1e3 / (outputTokens - 1);
        }

        /** GuideLLM's timings after the first token (its iter_tokens_timings): empty without two iterations. */
        List<Weighted> iterTimings() {
            final List<Weighted> t = outputTimings();
            return firstTokenUs == null || lastTokenUs == null || iterations <= 1 || outputTokens <= 1 ? List.of() : t.subList(1, t.size());
        }

        /** GuideLLM's output token timings: the first token, then the other iterations evenly spaced up to the last. */
        List<Weighted> outputTimings() {
            if (firstTokenUs == null || lastTokenUs == null || iterations <= 1) {
                return List.of(w((lastTokenUs != null ? lastTokenUs : endUs) / 1e6, outputTokens));
            }
            final List<Weighted> out = new ArrayList<>();
            out.add(w(firstTokenUs / 1e6, outputTokens > 0 ? 1 : 0));
            if (outputTokens > 1) {
                final double perIteration = (outputTokens - 1.0) / (iterations - 1.0);
                for (int i = 1; i < iterations; i++) {
                    out.add(w((firstTokenUs + (double) (lastTokenUs - firstTokenUs) * i / (iterations - 1)) / 1e6, perIteration));
                }
            }
            return out;
        }
    }

    private GuidellmReport() {
    }

    static Stats stats(Exchange x) {
        final var e = x.event();
        final String status = x.ok() ? "successful" : e.getStatus() == RequestStatus.ABANDONED ? "incomplete" : "errored";
        final Long first = e.getFirstChunkTimeUs() == null ? null : Micros.of(e.getFirstChunkTimeUs());
        final Long firstAnswer = e.getFirstAnswerTimeUs() == null ? null : Micros.of(e.getFirstAnswerTimeUs());
        final Long last = e.getLastChunkTimeUs() == null ? null : Micros.of(e.getLastChunkTimeUs());
        return new Stats(e.getRequestId(), status, Micros.of(e.getIntendedSendTimeUs()), x.actualSendUs(), x.completionUs(), first,
                firstAnswer, last, Math.max(x.arrivalsUs().length, e.getContentChunks()), e.getPromptTokens(), e.getOutputTokens(),
                x.ok() ? null : e.getErrorMessage() != null ? e.getErrorMessage() : x.error());
    }

    /** The whole file (GuideLLM's report schema version 2): one benchmark per scenario, in the order they ran. */
    static Map<String, Object> of(String runId, List<RunSummary> scenarios, Map<String, List<Exchange>> byScenario, Contract contract,
                                  String target, String endpoint, String goodputVersion) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("metadata", GuidellmEnvelope.metadata(runId, contract, goodputVersion));
        m.put("config", GuidellmEnvelope.config(scenarios, contract, target, endpoint));
        final List<Object> benchmarks = new ArrayList<>();
        int index = 0;
        for (RunSummary s : scenarios) {
            final List<Exchange> xs = byScenario.getOrDefault(s.getScenarioId(), List.of());
            benchmarks.add(benchmark(GuidellmEnvelope.benchmarkConfig(runId, index++, s, contract, endpoint), s,
                    xs.stream().map(GuidellmReport::stats).toList()));
        }
        m.put("benchmarks", benchmarks);
        return m;
    }

    static Map<String, Object> benchmark(Map<String, Object> config, RunSummary s, List<Stats> all) {
        final double measureStart = all.stream().mapToDouble(Stats::start).min().orElse(Micros.of(s.getWarmupEndUs()) / 1e6);
        final double measureEnd = all.stream().mapToDouble(Stats::end).max().orElse(Micros.of(s.getEndedUs()) / 1e6);
        final Map<String, List<Stats>> by = new LinkedHashMap<>();
        for (String st : List.of("successful", "incomplete", "errored")) {
            by.put(st, all.stream().filter(x -> x.status().equals(st)).toList());
        }
        final Map<String, Object> b = new LinkedHashMap<>();
        b.put("type_", "generative_benchmark");
        b.put("config", config);
        b.put("scheduler_state", GuidellmEnvelope.schedulerState(s, by, measureStart, measureEnd));
        final Map<String, Object> sched = new LinkedHashMap<>();
        sched.put("start_time", Micros.of(s.getStartedUs()) / 1e6);
        sched.put("request_start_time", Micros.of(s.getStartedUs()) / 1e6);
        sched.put("measure_start_time", measureStart);
        sched.put("measure_end_time", measureEnd);
        sched.put("request_end_time", measureEnd);
        sched.put("end_time", Micros.of(s.getEndedUs()) / 1e6);
        sched.put("requests_made", totals(by));
        GuidellmEnvelope.schedulerAverages(sched, all);
        b.put("scheduler_metrics", sched);

        final Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("request_totals", totals(by));
        metrics.put("requests_per_second", rates(by, x -> List.of(w(x.end(), 1)), measureStart, measureEnd));
        final Map<String, Map<String, Object>> conc = new LinkedHashMap<>();
        final List<double[]> allIntervals = new ArrayList<>();
        by.forEach((st, xs) -> {
            final List<double[]> iv = xs.stream().map(x -> new double[] {x.start(), x.end()}).toList();
            allIntervals.addAll(iv);
            conc.put(st, GuidellmDistribution.concurrency(iv, measureStart, measureEnd));
        });
        metrics.put("request_concurrency", GuidellmDistribution.byStatus(conc.get("successful"), conc.get("incomplete"),
                conc.get("errored"), GuidellmDistribution.concurrency(allIntervals, measureStart, measureEnd)));
        metrics.put("request_latency", values(by, x -> w(x.latency(), 1)));
        metrics.put("request_streaming_iterations_count", values(by, x -> w(x.iterations(), 1)));
        metrics.put("prompt_token_count", values(by, x -> w(x.promptTokens(), 1)));
        metrics.put("output_token_count", values(by, x -> w(x.outputTokens(), 1)));
        metrics.put("total_token_count", values(by, x -> w(x.promptTokens() + x.outputTokens(), 1)));
        metrics.put("time_to_first_token_ms", values(by, x -> w(orZero(x.ttftMs()), 1)));
        metrics.put("time_to_first_output_token_ms", values(by, x -> w(orZero(x.ttfotMs()), 1)));
        metrics.put("time_per_output_token_ms", values(by, x -> w(orZero(x.tpotMs()), x.outputTokens())));
        metrics.put("inter_token_latency_ms", values(by, x -> w(orZero(x.itlMs()), Math.max(1, x.outputTokens()) - 1)));
        metrics.put("prompt_tokens_per_second", rates(by, x -> List.of(w(x.firstToken() != null ? x.firstToken() : x.end(),
                x.promptTokens())), null, null));
        metrics.put("output_tokens_per_second", rates(by, Stats::outputTimings, null, null));
        metrics.put("tokens_per_second", rates(by, x -> {
            final List<Weighted> t = new ArrayList<>();
            t.add(w(x.firstToken() != null ? x.firstToken() : x.end(), x.promptTokens()));
            t.addAll(x.outputTimings());
            return t;
        }, null, null));
        metrics.put("output_tokens_per_iteration", spread(by, x -> x.outputTimings().stream().map(t -> w(t.weight(), 1)).toList()));
        metrics.put("iter_tokens_per_iteration", spread(by, x -> x.iterTimings().stream().map(t -> w(t.weight(), 1)).toList()));
        GuidellmEnvelope.modalities(metrics);
        b.put("metrics", metrics);
        final double schedulerStart = Micros.of(s.getStartedUs()) / 1e6;
        final Map<String, Object> requests = new LinkedHashMap<>();
        by.forEach((st, xs) -> requests.put(st, xs.stream().map(x -> request(x, schedulerStart)).toList()));
        requests.put("total", null);
        b.put("requests", requests);
        b.put("start_time", measureStart);
        b.put("end_time", measureEnd);
        b.put("duration", measureEnd - measureStart);
        b.put("warmup_duration", measureStart - Micros.of(s.getStartedUs()) / 1e6);
        b.put("cooldown_duration", 0.0);
        return b;
    }

    private static double orZero(Double v) {
        return v == null ? 0.0 : v;
    }

    private static Map<String, Object> totals(Map<String, List<Stats>> by) {
        final Map<String, Object> t = new LinkedHashMap<>();
        long total = 0;
        for (var e : by.entrySet()) {
            t.put(e.getKey(), e.getValue().size());
            total += e.getValue().size();
        }
        t.put("total", total);
        return t;
    }

    private static Map<String, Object> values(Map<String, List<Stats>> by, Function<Stats, Weighted> f) {
        final Map<String, Map<String, Object>> per = new LinkedHashMap<>();
        final List<Weighted> all = new ArrayList<>();
        by.forEach((st, xs) -> {
            final List<Weighted> v = xs.stream().map(f).toList();
            all.addAll(v);
            per.put(st, GuidellmDistribution.fromValues(v, null));
        });
        return GuidellmDistribution.byStatus(per.get("successful"), per.get("incomplete"), per.get("errored"),
                GuidellmDistribution.fromValues(all, null));
    }

    /** A distribution of several values per request (GuideLLM's per-iteration token counts). */
    private static Map<String, Object> spread(Map<String, List<Stats>> by, Function<Stats, List<Weighted>> f) {
        final Map<String, Map<String, Object>> per = new LinkedHashMap<>();
        final List<Weighted> all = new ArrayList<>();
        by.forEach((st, xs) -> {
            final List<Weighted> v = xs.stream().flatMap(x -> f.apply(x).stream()).toList();
            all.addAll(v);
            per.put(st, GuidellmDistribution.fromValues(v, null));
        });
        return GuidellmDistribution.byStatus(per.get("successful"), per.get("incomplete"), per.get("errored"),
                GuidellmDistribution.fromValues(all, null));
    }

    private static Map<String, Object> rates(Map<String, List<Stats>> by, Function<Stats, List<Weighted>> f, Double start, Double end) {
        final Map<String, Map<String, Object>> per = new LinkedHashMap<>();
        final List<Weighted> all = new ArrayList<>();
        by.forEach((st, xs) -> {
            final List<Weighted> v = xs.stream().flatMap(x -> f.apply(x).stream()).toList();
            all.addAll(v);
            per.put(st, GuidellmDistribution.rate(v, start, end));
        });
        return GuidellmDistribution.byStatus(per.get("successful"), per.get("incomplete"), per.get("errored"),
                GuidellmDistribution.rate(all, start, end));
    }

    private static Map<String, Object> request(Stats x, double schedulerStart) {
        final Map<String, Object> r = new LinkedHashMap<>();
        r.put("type_", "generative_request_stats");
        r.put("request_id", x.requestId());
        r.put("info", GuidellmEnvelope.info(x, schedulerStart));
        r.put("input_metrics", GuidellmEnvelope.usage(x.promptTokens()));
        r.put("output_metrics", GuidellmEnvelope.usage(x.outputTokens()));
        r.put("request_start_time", x.start());
        r.put("request_end_time", x.end());
        r.put("request_latency", x.latency());
        r.put("prompt_tokens", x.promptTokens());
        r.put("output_tokens", x.outputTokens());
        r.put("total_tokens", x.promptTokens() + x.outputTokens());
        r.put("time_to_first_token_ms", x.ttftMs());
        r.put("time_to_first_output_token_ms", x.ttfotMs());
        r.put("time_per_output_token_ms", x.tpotMs());
        r.put("inter_token_latency_ms", x.itlMs());
        r.put("tokens_per_second", x.latency() > 0 ? (x.promptTokens() + x.outputTokens()) / x.latency() : null);
        r.put("output_tokens_per_second", x.latency() > 0 ? x.outputTokens() / x.latency() : null);
        return r;
    }
}

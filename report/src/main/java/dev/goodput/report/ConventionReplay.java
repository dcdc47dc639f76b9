package dev.goodput.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenEvent;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Conventions;
import dev.goodput.definitions.Histograms;
import dev.goodput.definitions.Micros;
import dev.goodput.records.TokenRuns;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.topics.Topics;
import org.HdrHistogram.Histogram;

/**
 * A run recomputed from its raw events under Goodput's, vLLM's and AIPerf's conventions, side by
 * side, with the reasons the numbers differ counted from the same events. Like the tools, it works
 * on every sample at once (their percentiles interpolate between exact samples), so it reads the
 * raw topics rather than the windowed results.
 */
public final class ConventionReplay {

    /** The metrics compared, in display order. */
    public static final List<String> METRICS = List.of("ttft", "tpot", "itl", "e2e");

    /** One metric under one convention: sample count, mean, median and p99, microseconds. */
    public record Stat(long samples, double meanUs, double p50Us, double p99Us) {
    }

    /** One scenario under one convention. */
    public record Result(long requests, long ok, long good, double goodputRps, Map<String, Stat> stats) {
    }

    /** Why the conventions' numbers differ, counted on the scenario's successful requests. */
    public record Reasons(long ok, double meanLatenessUs, long maxLatenessUs, long textlessFirstChoice, double meanTextlessLeadUs,
                          long oneToken, long sloPassQualityFail, long multiTokenChunks, long requestsBeyondChunks,
                          long tokensBeyondChunks) {
    }

    /** A scenario: its measured duration, its results by convention, and the reasons. */
    public record Scenario(String scenarioId, double durationS, Map<Conventions.Tool, Result> results, Reasons reasons) {
    }

    private ConventionReplay() {
    }

    /**
     * Reads a run's request and token events (warm-up left out) and recomputes it under every
     * convention; {@code qualityFloor}, when not null, re-judges Goodput's quality verdict from the
     * recorded scores, as a what-if replay does.
     */
    public static List<Scenario> load(Properties client, SchemaRegistryClient registry, String runId, long fromUs, long toUs,
                                      Contract.Objectives objectives, Double qualityFloor) {
        final List<RequestEvent> requests = TopicSnapshot.read(client, Topics.REQUESTS.name(),
                new AvroDeserializer<>(registry, RequestEvent.class)).stream()
                .filter(r -> (runId == null || r.getRunId().equals(runId)) && !r.getWarmup())
                .filter(r -> Micros.of(r.getCompletionTimeUs()) >= fromUs && Micros.of(r.getCompletionTimeUs()) < toUs)
                .toList();
        // token events are many: only each chunk's arrival is kept, as they are read
        final ChunkArrivals chunks = new ChunkArrivals();
        TopicSnapshot.forEach(client, Topics.TOKENS.name(), new AvroDeserializer<>(registry, TokenEvent.class), (t, partition) -> {
            if ((runId == null || t.getRunId().equals(runId)) && !t.getWarmup()) {
                TokenRuns.chunks(t).forEach(chunks::add);
            }
        });
        return compute(requests, chunks, objectives, qualityFloor);
    }

    /** Recomputes request events and their token events under every convention, per scenario in order of appearance. */
    public static List<Scenario> compute(List<RequestEvent> requests, List<TokenEvent> tokens, Contract.Objectives objectives,
                                         Double qualityFloor) {
        final ChunkArrivals chunks = new ChunkArrivals();
        tokens.forEach(t -> TokenRuns.chunks(t).forEach(chunks::add));
        return compute(requests, chunks, objectives, qualityFloor);
    }

    private static List<Scenario> compute(List<RequestEvent> requests, ChunkArrivals chunks, Contract.Objectives objectives,
                                          Double qualityFloor) {
        final Map<String, List<RequestEvent>> byScenario = new LinkedHashMap<>();
        final Map<String, RequestEvent> seen = new LinkedHashMap<>();
        requests.forEach(r -> seen.putIfAbsent(r.getRequestId() + "#" + r.getAttempt(), r));
        seen.values().forEach(r -> byScenario.computeIfAbsent(r.getScenarioId(), k -> new ArrayList<>()).add(r));
        final List<Scenario> out = new ArrayList<>();
        for (var e : byScenario.entrySet()) {
            out.add(scenario(e.getKey(), e.getValue(), chunks, objectives, qualityFloor));
        }
        return out;
    }

    private static Scenario scenario(String id, List<RequestEvent> requests, ChunkArrivals chunks, Contract.Objectives o,
                                     Double qualityFloor) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (RequestEvent r : requests) {
            first = Math.min(first, Micros.of(r.getActualSendTimeUs()));
            last = Math.max(last, Micros.of(r.getCompletionTimeUs()));
        }
        // one duration for every convention, so that goodput differs only by what each counts as good
        final double durationS = Math.max(0, last - first) / 1e6;
        final List<RequestEvent> ok = requests.stream().filter(r -> r.getStatus() == RequestStatus.OK && r.getFirstChunkTimeUs() != null)
                .toList();
        final Map<Conventions.Tool, Result> results = new LinkedHashMap<>();
        long latenessSum = 0;
        long latenessMax = 0;
        long textless = 0;
        long leadSum = 0;
        long oneToken = 0;
        long qualityOnly = 0;
        long multi = 0;
        long beyondRequests = 0;
        long beyondTokens = 0;
        for (Conventions.Tool tool : Conventions.Tool.values()) {
            final Map<String, List<Double>> samples = new LinkedHashMap<>();
            METRICS.forEach(m -> samples.put(m, new ArrayList<>()));
            long good = 0;
            for (RequestEvent r : ok) {
                final long[] arrivals = chunks.arrivals(r.getRequestId());
                final Conventions.Measures m = Conventions.measure(tool, RequestTimes.of(r), arrivals);
                samples.get("ttft").add(m.ttftUs());
                if (!Double.isNaN(m.tpotUs())) {
                    samples.get("tpot").add(m.tpotUs());
                }
                for (long g : m.gapsUs()) {
                    samples.get("itl").add((double) g);
                }
                samples.get("e2e").add(m.e2eUs());
                final boolean quality = qualityFloor == null ? r.getQualityPass() == null || r.getQualityPass()
                        : r.getQualityScore() != null && r.getQualityScore() >= qualityFloor;
                if (Conventions.good(tool, m, o, quality)) {
                    good++;
                }
                if (tool == Conventions.Tool.GOODPUT) {
                    final long lateness = Micros.of(r.getActualSendTimeUs()) - Micros.of(r.getIntendedSendTimeUs());
                    latenessSum += lateness;
                    latenessMax = Math.max(latenessMax, lateness);
                    if (r.getFirstChoiceTimeUs() != null && r.getFirstChoiceTimeUs().isBefore(r.getFirstChunkTimeUs())) {
                        textless++;
                        leadSum += Micros.of(r.getFirstChunkTimeUs()) - Micros.of(r.getFirstChoiceTimeUs());
                    }
                    if (r.getOutputTokens() < 2) {
                        oneToken++;
                    }
                    if (!quality && Conventions.good(Conventions.Tool.GOODPUT, m, o, true)) {
                        qualityOnly++;
                    }
                    multi += chunks.multiTokenChunks(r.getRequestId());
                    // without per-chunk usage every chunk counts 1 token; the server's usage still tells
                    // when chunks carried several, which is where TPOT and per-chunk ITL part
                    if (r.getOutputTokens() > r.getContentChunks()) {
                        beyondRequests++;
                        beyondTokens += r.getOutputTokens() - r.getContentChunks();
                    }
                }
            }
            final Map<String, Stat> stats = new LinkedHashMap<>();
            samples.forEach((k, v) -> stats.put(k, stat(tool, k, v)));
            results.put(tool, new Result(requests.size(), ok.size(), good, durationS <= 0 ? 0 : good / durationS, stats));
        }
        return new Scenario(id, durationS, results, new Reasons(ok.size(), ok.isEmpty() ? 0 : (double) latenessSum / ok.size(),
                latenessMax, textless, textless == 0 ? 0 : (double) leadSum / textless, oneToken, qualityOnly, multi,
                beyondRequests, beyondTokens));
    }

    /** Mean, median and p99 of one metric: HdrHistogram for Goodput, numpy's linear interpolation for the tools. */
    static Stat stat(Conventions.Tool tool, String metric, List<Double> values) {
        final double[] a = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        final double mean = a.length == 0 ? Double.NaN : Arrays.stream(a).sum() / a.length;
        if (tool != Conventions.Tool.GOODPUT) {
            return new Stat(a.length, mean, Conventions.linearPercentile(a, 50), Conventions.linearPercentile(a, 99));
        }
        final Histogram h = metric.equals("itl") ? Histograms.token() : Histograms.request();
        for (double v : a) {
            Histograms.record(h, Math.round(v));
        }
        return new Stat(a.length, mean, a.length == 0 ? Double.NaN : h.getValueAtPercentile(50),
                a.length == 0 ? Double.NaN : h.getValueAtPercentile(99));
    }

    /** The comparison as text: a table per scenario, then why the numbers differ. */
    public static String text(List<Scenario> scenarios) {
        final StringBuilder sb = new StringBuilder();
        final String row = "  %-28s %12s %18s %15s%n";
        for (Scenario s : scenarios) {
            final Result g = s.results().get(Conventions.Tool.GOODPUT);
            sb.append(String.format(Locale.ROOT, "scenario %s: %d requests, %d ok, %.1f s%n", s.scenarioId(), g.requests(), g.ok(),
                    s.durationS()));
            sb.append(String.format(Locale.ROOT, row, "", Conventions.Tool.GOODPUT.label(), Conventions.Tool.VLLM.label(),
                    Conventions.Tool.AIPERF.label()));
            for (String m : METRICS) {
                for (String[] f : new String[][] {{"mean", "mean"}, {"p50", "median"}, {"p99", "p99"}}) {
                    sb.append(String.format(Locale.ROOT, row, label(m) + " " + f[1] + " ms",
                            ms(s, Conventions.Tool.GOODPUT, m, f[0]), ms(s, Conventions.Tool.VLLM, m, f[0]), ms(s, Conventions.Tool.AIPERF, m, f[0])));
                }
            }
            sb.append(String.format(Locale.ROOT, row, "good requests", g.good(), s.results().get(Conventions.Tool.VLLM).good(),
                    s.results().get(Conventions.Tool.AIPERF).good()));
            sb.append(String.format(Locale.ROOT, row, "goodput req/s", Fmt.num(g.goodputRps()),
                    Fmt.num(s.results().get(Conventions.Tool.VLLM).goodputRps()), Fmt.num(s.results().get(Conventions.Tool.AIPERF).goodputRps())));
            sb.append("  why they differ:\n");
            for (String reason : reasons(s.reasons())) {
                sb.append("    - ").append(reason).append('\n');
            }
        }
        return sb.toString();
    }

    private static String label(String metric) {
        return switch (metric) {
            case "ttft" -> "TTFT";
            case "tpot" -> "TPOT (AIPerf ITL)";
            case "itl" -> "ITL per chunk";
            default -> "E2E";
        };
    }

    private static String ms(Scenario s, Conventions.Tool tool, String metric, String which) {
        final Stat st = s.results().get(tool).stats().get(metric);
        final double v = switch (which) {
            case "mean" -> st.meanUs();
            case "p50" -> st.p50Us();
            default -> st.p99Us();
        };
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v / 1000);
    }

    /** The reasons, as sentences with this scenario's counts. */
    public static List<String> reasons(Reasons r) {
        final List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "clock start: the tools start at the actual send, Goodput at the intended send; dispatch lateness "
                + "mean %.3f ms, max %.3f ms, is in Goodput's TTFT and E2E only", r.meanLatenessUs() / 1000, r.maxLatenessUs() / 1000.0));
        out.add(String.format(Locale.ROOT, "first chunk: %d of %d requests opened with a choice event without text (a role-only delta); "
                + "vLLM stops its TTFT clock there, %.3f ms earlier on average, and counts the gap as an ITL sample; Goodput and AIPerf "
                + "wait for content", r.textlessFirstChoice(), r.ok(), r.meanTextlessLeadUs() / 1000));
        out.add(String.format(Locale.ROOT, "one-token requests: %d; no TPOT for any of the three; for goodput vLLM counts their TPOT as 0, "
                + "AIPerf counts them not good under a TPOT (ITL) objective, Goodput judges them on TTFT and E2E only", r.oneToken()));
        out.add(String.format(Locale.ROOT, "multi-token chunks: %d counted per chunk (continuous usage); %d requests reported more "
                + "output tokens than content chunks, %d tokens more in all; TPOT divides by tokens, per-chunk ITL does not",
                r.multiTokenChunks(), r.requestsBeyondChunks(), r.tokensBeyondChunks()));
        out.add(String.format(Locale.ROOT, "quality: %d requests met every objective but failed the quality floor: good for the tools, "
                + "not for Goodput", r.sloPassQualityFail()));
        out.add("percentiles: Goodput reads HdrHistograms (3 significant digits; the smallest value with at least p% of samples at "
                + "or below it); the tools interpolate linearly between the two nearest samples (numpy's default)");
        return out;
    }

    /** The comparison as JSON-ready maps. */
    public static Map<String, Object> json(String replayId, String runId, Contract.Objectives o, List<Scenario> scenarios) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("replay_id", replayId);
        m.put("run_id", runId);
        m.put("objectives_us", Map.of("ttft", o.ttftUs().orElse(null) == null ? "none" : o.ttftUs().get(),
                "tpot", o.tpotUs().orElse(null) == null ? "none" : o.tpotUs().get(),
                "e2e", o.e2eUs().orElse(null) == null ? "none" : o.e2eUs().get()));
        final List<Object> list = new ArrayList<>();
        for (Scenario s : scenarios) {
            final Map<String, Object> sm = new LinkedHashMap<>();
            sm.put("scenario_id", s.scenarioId());
            sm.put("duration_s", s.durationS());
            final Map<String, Object> byTool = new LinkedHashMap<>();
            s.results().forEach((tool, r) -> {
                final Map<String, Object> rm = new LinkedHashMap<>();
                rm.put("requests", r.requests());
                rm.put("ok", r.ok());
                rm.put("good", r.good());
                rm.put("goodput_rps", r.goodputRps());
                final Map<String, Object> stats = new LinkedHashMap<>();
                r.stats().forEach((k, st) -> stats.put(k, Map.of("samples", st.samples(), "mean_us", nan(st.meanUs()),
                        "p50_us", nan(st.p50Us()), "p99_us", nan(st.p99Us()))));
                rm.put("stats", stats);
                byTool.put(tool.name().toLowerCase(Locale.ROOT), rm);
            });
            sm.put("conventions", byTool);
            sm.put("why_they_differ", reasons(s.reasons()));
            list.add(sm);
        }
        m.put("scenarios", list);
        return m;
    }

    private static Object nan(double v) {
        return Double.isNaN(v) ? "n/a" : v;
    }
}

package dev.goodput.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.LatencySummary;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.WindowStats;
import dev.goodput.definitions.CostFormulas;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Histograms;
import dev.goodput.definitions.Micros;
import dev.goodput.definitions.ServingSummary;
import dev.goodput.records.LatencySummaries;
import org.HdrHistogram.Histogram;

/**
 * One scenario of a run, whole: counts summed over its windows, latency histograms merged over
 * its windows (never percentiles averaged), rates over its measured time, cost over its measured
 * time only ({@link ChargedTime}: windows it shares or barely touches are charged the part it used)
 * at the price the sink charged, and MLPerf early stopping on the per-request latencies.
 *
 * @param load            the configured load: requests/s for open loop, streams for closed loop
 * @param measuredSeconds the generator's time after warm-up, summed over the scenario's runs
 * @param inFlight        mean requests in flight, by Little's law: ok requests/s x mean E2E
 * @param latency         merged histograms by metric: ttft, ttfat, itl, tpot, e2e
 * @param costPerSuccessfulM null when no window was priced or nothing good was produced
 * @param earlyStopping   by metric (ttft, tpot, e2e): the p99 verdict over the ok requests
 * @param allFinal        false when a window had not closed when the report was made
 * @param inputTokens     prompt tokens of the OK requests (vLLM's "Total input tokens")
 */
public record ScenarioSummary(String scenarioId, String contractId, String arrival, double load, boolean closedLoop,
                              double measuredSeconds, int windows, boolean allFinal, long requests, long ok, long errors,
                              long timeouts, long abandoned, Map<String, Long> errorsByClass, long sloPass, long qualityPass,
                              long good, long tokensOk, long tokensGood, double goodputRps, double goodFraction,
                              double tokensPerS, double inFlight, Map<String, Histogram> latency, Double costPerSuccessfulM,
                              Double hourlyCostUsd, Map<String, Tail> earlyStopping, boolean generatorSaturated,
                              long inputTokens) {

    /** The metrics with latency histograms, in display order. */
    public static final List<String> METRICS = List.of("ttft", "ttfat", "itl", "tpot", "e2e");
    /** The metrics with per-request samples for early stopping. */
    public static final List<String> TAIL_METRICS = List.of("ttft", "tpot", "e2e");

    /** The p99 of one metric over the ok requests: the nearest-rank value and MLPerf's verdict on it. */
    public record Tail(long samples, long nearestRankP99Us, EarlyStopping.Verdict verdict, long estimateUs) {
    }

    /** Summaries of every scenario of the run, in the order they ran. */
    public static List<ScenarioSummary> of(RunRecords run) {
        final List<ScenarioSummary> out = new ArrayList<>();
        for (String scenario : run.scenarioIds()) {
            out.add(of(scenario, run.runs().stream().filter(r -> r.getScenarioId().equals(scenario)).toList(),
                    run.windows().stream().filter(w -> w.getScenarioId().equals(scenario)).toList(),
                    run.costs().stream().filter(c -> c.getScenarioId().equals(scenario)).toList(),
                    run.verdicts().stream().filter(v -> v.getScenarioId().equals(scenario)).toList()));
        }
        return out;
    }

    static ScenarioSummary of(String scenario, List<RunSummary> runs, List<WindowStats> windows, List<CostRecord> costs,
                              List<RequestVerdict> verdicts) {
        final RunSummary first = runs.get(0);
        final boolean closed = first.getConcurrency() != null;
        double seconds = 0;
        boolean saturated = false;
        for (RunSummary r : runs) {
            seconds += Definitions.measuredSeconds(Micros.of(r.getWarmupEndUs()), Micros.of(r.getEndedUs()));
            saturated |= r.getGeneratorSaturated();
        }
        long requests = 0, ok = 0, errors = 0, timeouts = 0, abandoned = 0, slo = 0, quality = 0, good = 0, tokOk = 0, tokGood = 0;
        boolean allFinal = true;
        final Map<String, Long> byClass = new TreeMap<>();
        final Map<String, Histogram> latency = new LinkedHashMap<>();
        METRICS.forEach(m -> latency.put(m, m.equals("itl") ? Histograms.token() : Histograms.request()));
        for (WindowStats w : windows) {
            requests += w.getRequestsTotal();
            ok += w.getRequestsOk();
            errors += w.getRequestsError();
            timeouts += w.getRequestsTimeout();
            abandoned += w.getRequestsAbandoned();
            slo += w.getSloPassRequests();
            quality += w.getQualityPassRequests();
            good += w.getGoodRequests();
            tokOk += w.getOutputTokensOk();
            tokGood += w.getOutputTokensGood();
            allFinal &= w.getIsFinal();
            w.getErrorsByClass().forEach((k, v) -> byClass.merge(k, v, Long::sum));
            merge(latency.get("ttft"), w.getTtft());
            merge(latency.get("ttfat"), w.getTtfat());
            merge(latency.get("itl"), w.getItl());
            merge(latency.get("tpot"), w.getTpot());
            merge(latency.get("e2e"), w.getE2e());
        }
        // charged its measured span only, at the hourly cost (headroom included) the sink priced each window with
        final CostFormulas.Span priced = CostFormulas.span(ChargedTime.segments(ChargedTime.spans(runs), costs),
                costs.isEmpty() ? 1 : costs.get(0).getGpuCount());
        final Double hourly = priced.seconds() > 0 ? CostFormulas.hourlyRate(priced.costUsd(), priced.seconds()) : null;
        final double perM = hourly == null ? Double.NaN
                : CostFormulas.costPerSuccessfulMillion(priced.costUsd(), priced.outputTokensGood());
        final Histogram e2e = latency.get("e2e");
        final double okPerS = Definitions.perSecond(ok, seconds);
        final double inFlight = e2e.getTotalCount() == 0 ? 0 : okPerS * e2e.getMean() / 1e6;
        final Map<String, Tail> tails = new LinkedHashMap<>();
        for (String m : TAIL_METRICS) {
            tails.put(m, tail(samples(verdicts, m)));
        }
        return new ScenarioSummary(scenario, first.getContractId(), first.getArrival(),
                closed ? first.getConcurrency() : first.getRateRps() == null ? 0 : first.getRateRps(), closed, seconds,
                windows.size(), allFinal, requests, ok, errors, timeouts, abandoned, byClass, slo, quality, good, tokOk, tokGood,
                Definitions.perSecond(good, seconds), Definitions.goodFraction(good, requests), Definitions.perSecond(tokOk, seconds),
                inFlight, latency, Double.isNaN(perM) ? null : perM, hourly, tails, saturated,
                verdicts.stream().filter(v -> v.getStatus() == RequestStatus.OK && v.getPromptTokens() != null)
                        .mapToLong(RequestVerdict::getPromptTokens).sum());
    }

    /**
     * This scenario as vLLM's bench serve prints its result, from the pipeline's final windows, with
     * Goodput's additions: good requests, goodput, cost per successful 1M tokens, and what limits the
     * figures' validity.
     */
    public ServingSummary serving() {
        final Map<String, Histogram> shown = new LinkedHashMap<>();
        for (String m : List.of("ttft", "tpot", "itl", "e2e")) {
            shown.put(m, latency.get(m));
        }
        final Map<String, String> additions = new LinkedHashMap<>();
        additions.put("Cost per successful 1M tokens (USD)", costPerSuccessfulM == null ? "not priced"
                : String.format(Locale.ROOT, "%.4f", costPerSuccessfulM));
        final List<String> limits = new ArrayList<>();
        if (!allFinal) {
            limits.add("windows not all final");
        }
        if (generatorSaturated) {
            limits.add("generator saturated");
        }
        final Tail p99 = earlyStopping.get("ttft");
        if (p99 != null && !p99.verdict().supported()) {
            limits.add("too few requests for MLPerf early stopping on the TTFT p99 (" + p99.samples() + " of "
                    + p99.verdict().minSamples() + ")");
        }
        additions.put("Validity", limits.isEmpty() ? "valid" : String.join("; ", limits));
        return new ServingSummary("Serving Benchmark Result (vLLM's layout; Goodput's definitions: times from the intended send)",
                ok, requests - ok, good, measuredSeconds, inputTokens,
                tokensOk, shown, additions);
    }

    /** Early stopping on a metric's ascending samples. */
    static Tail tail(long[] ascending) {
        final EarlyStopping.Verdict v = EarlyStopping.evaluate(ascending.length, EarlyStopping.P99, EarlyStopping.CONFIDENCE);
        final long nearestRank = ascending.length == 0 ? -1 : ascending[(int) Math.ceil(0.99 * ascending.length) - 1];
        return new Tail(ascending.length, nearestRank, v, v.estimate(ascending));
    }

    /** The ok requests' values of one metric, ascending; one-token requests have no TPOT. */
    static long[] samples(List<RequestVerdict> verdicts, String metric) {
        final long[] out = verdicts.stream().filter(v -> v.getStatus() == RequestStatus.OK).mapToLong(v -> switch (metric) {
            case "ttft" -> v.getTtftUs() == null ? -1 : v.getTtftUs();
            case "e2e" -> v.getE2eUs() == null ? -1 : v.getE2eUs();
            case "tpot" -> v.getTpotUs() == null ? -1 : Math.round(v.getTpotUs());
            default -> throw new IllegalArgumentException(metric);
        }).filter(x -> x >= 0).toArray();
        Arrays.sort(out);
        return out;
    }

    private static void merge(Histogram into, LatencySummary s) {
        if (s.getCount() > 0) {
            into.add(LatencySummaries.histogram(s));
        }
    }

    /** The scenario id without its load part (p128-o64-r10-cold -> p128-o64-cold): scenarios that differ only in load. */
    public String family() {
        return scenarioId.replaceAll("-(r|c)[0-9.]+(?=-|$)", "");
    }
}

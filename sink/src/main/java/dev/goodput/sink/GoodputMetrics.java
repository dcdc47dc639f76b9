package dev.goodput.sink;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.WindowStats;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

/**
 * Window results as gauges (the latest final window of each contract and scenario, and its cost),
 * under {@code goodput_} names. A scenario's series are removed once it has produced no final
 * window for {@code staleAfter}, and an error class that did not occur in a scenario's latest
 * window is removed with it: a gauge says what the latest window held, never what an old one did.
 * Per-request distributions are histograms in {@link ClientMetrics}, never gauges of percentiles.
 */
public final class GoodputMetrics {

    /** How long a scenario's window gauges live after its last final window, by default. */
    public static final Duration DEFAULT_STALE_AFTER = Duration.ofMinutes(5);

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Duration staleAfter;
    private final Gauge goodput = gauge("goodput_good_requests_per_second", "Good requests per second, latest final window.");
    private final Gauge goodTokens = gauge("goodput_good_output_tokens_per_second",
            "Output tokens of good requests per second, latest final window.");
    private final Gauge goodFraction = gauge("goodput_good_fraction", "Good requests over all requests, latest final window.");
    private final Gauge tokens = gauge("goodput_output_tokens_per_second", "Output tokens of OK requests per second, latest final window.");
    private final Gauge tokensPerGpu = gauge("goodput_output_tokens_per_gpu_second",
            "Output tokens of OK requests per GPU-second, latest final window.");
    private final Gauge requests = Gauge.builder().name("goodput_window_requests").help("Requests in the latest final window by status.")
            .labelNames("goodput_contract", "goodput_scenario", "status").register(registry);
    private final Gauge errors = Gauge.builder().name("goodput_window_errors")
            .help("Non-OK requests in the latest final window by error class (only classes that occurred in it).")
            .labelNames("goodput_contract", "goodput_scenario", "error_type").register(registry);
    private final Gauge consumerLag = Gauge.builder().name("goodput_consumer_group_lag_records")
            .help("Records between a consumer group's committed offsets and the ends of its partitions (streams-app, sink).")
            .labelNames("group").register(registry);
    private final Gauge cacheHit = gauge("goodput_prefix_cache_hit_ratio", "Prompt tokens the server served from its prefix cache"
            + " over the prompt tokens of the requests whose server said (usage.prompt_tokens_details.cached_tokens), latest final"
            + " window; absent while no request said.");
    private final Gauge windowEnd = gauge("goodput_window_end_timestamp_seconds", "End of the latest final window (event time).");
    private final Gauge costSuccessful = Gauge.builder().name("goodput_cost_per_successful_million_tokens_usd")
            .help("Cost per successful million output tokens (failures, overheads and headroom included).")
            .labelNames("goodput_contract", "goodput_scenario", "span").register(registry);
    private final Gauge costCompute = Gauge.builder().name("goodput_compute_cost_per_million_tokens_usd")
            .help("Compute-only cost per million output tokens at achieved throughput.")
            .labelNames("goodput_contract", "goodput_scenario", "span").register(registry);
    private final Gauge gpuPrice = Gauge.builder().name("goodput_usd_per_gpu_hour").help("GPU price applied.")
            .labelNames("goodput_contract", "goodput_scenario", "price_key").register(registry);

    /** Per (contract, scenario): when its last final window came (nanoTime), its error classes, its cost labels. */
    private final Map<List<String>, Long> lastFinal = new HashMap<>();
    private final Map<List<String>, Set<String>> classes = new HashMap<>();
    private final Map<List<String>, Set<List<String>>> costLabels = new HashMap<>();

    public GoodputMetrics() {
        this(DEFAULT_STALE_AFTER);
    }

    public GoodputMetrics(Duration staleAfter) {
        this.staleAfter = staleAfter;
    }

    /** The consumer-lag gauge, set by {@link ConsumerLag}. */
    Gauge consumerLag() {
        return consumerLag;
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /** Every metric name this registry serves, as Prometheus sees it. */
    public List<String> names() {
        return registry.scrape().stream().map(MetricSnapshot::getMetadata).map(m -> m.getPrometheusName()).toList();
    }

    public synchronized void onWindow(WindowStats w) {
        if (w == null || !w.getIsFinal()) {
            return;
        }
        final String c = ClientMetrics.shortId(w.getContractId());
        final String s = w.getScenarioId();
        final List<String> key = List.of(c, s);
        lastFinal.put(key, System.nanoTime());
        goodput.labelValues(c, s).set(w.getGoodputRps());
        goodTokens.labelValues(c, s).set(w.getGoodputTokensPerS());
        goodFraction.labelValues(c, s).set(w.getGoodFraction());
        tokens.labelValues(c, s).set(w.getOutputTokensPerS());
        tokensPerGpu.labelValues(c, s).set(w.getTokensPerGpuSecond());
        requests.labelValues(c, s, "ok").set(w.getRequestsOk());
        requests.labelValues(c, s, "error").set(w.getRequestsError());
        requests.labelValues(c, s, "timeout").set(w.getRequestsTimeout());
        requests.labelValues(c, s, "abandoned").set(w.getRequestsAbandoned());
        final Set<String> now = new HashSet<>(w.getErrorsByClass().keySet());
        for (String gone : classes.getOrDefault(key, Set.of())) {
            if (!now.contains(gone)) {
                errors.remove(c, s, gone);
            }
        }
        w.getErrorsByClass().forEach((k, v) -> errors.labelValues(c, s, k).set(v));
        classes.put(key, now);
        windowEnd.labelValues(c, s).set(w.getWindowEndUs().toEpochMilli() / 1000.0);
        if (w.getCacheHitRate() != null) {
            cacheHit.labelValues(c, s).set(w.getCacheHitRate());
        } else {
            cacheHit.remove(c, s);
        }
    }

    public synchronized void onCost(CostRecord r) {
        if (r == null || !r.getPriced()) {
            return;
        }
        final String c = ClientMetrics.shortId(r.getContractId());
        final String s = r.getScenarioId();
        final Set<List<String>> labels = costLabels.computeIfAbsent(List.of(c, s), k -> new HashSet<>());
        if (r.getCostPerSuccessfulMUsd() != null) {
            costSuccessful.labelValues(c, s, r.getSpan()).set(r.getCostPerSuccessfulMUsd());
        }
        if (r.getComputeCostPerMUsd() != null) {
            costCompute.labelValues(c, s, r.getSpan()).set(r.getComputeCostPerMUsd());
        }
        labels.add(List.of(r.getSpan(), r.getPriceKey()));
        gpuPrice.labelValues(c, s, r.getPriceKey()).set(r.getUsdPerGpuHour());
    }

    /** Removes the series of scenarios with no final window for {@code staleAfter}; returns how many scenarios went. */
    public synchronized int expire(long nowNanos) {
        final List<List<String>> stale = lastFinal.entrySet().stream()
                .filter(e -> nowNanos - e.getValue() >= staleAfter.toNanos()).map(Map.Entry::getKey).toList();
        for (List<String> key : stale) {
            final String c = key.get(0);
            final String s = key.get(1);
            for (Gauge g : List.of(goodput, goodTokens, goodFraction, tokens, tokensPerGpu, windowEnd, cacheHit)) {
                g.remove(c, s);
            }
            for (String status : List.of("ok", "error", "timeout", "abandoned")) {
                requests.remove(c, s, status);
            }
            classes.getOrDefault(key, Set.of()).forEach(k -> errors.remove(c, s, k));
            for (List<String> l : costLabels.getOrDefault(key, Set.of())) {
                costSuccessful.remove(c, s, l.get(0));
                costCompute.remove(c, s, l.get(0));
                gpuPrice.remove(c, s, l.get(1));
            }
            lastFinal.remove(key);
            classes.remove(key);
            costLabels.remove(key);
        }
        return stale.size();
    }

    private Gauge gauge(String name, String help) {
        return Gauge.builder().name(name).help(help).labelNames("goodput_contract", "goodput_scenario").register(registry);
    }
}

package dev.goodput.sink;

import java.util.List;
import java.util.Map;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.LatencySummary;
import dev.goodput.avro.WindowStats;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

/**
 * The gauges the sink exposes, set from final window stats and cost records. Latency names follow
 * the OpenTelemetry GenAI semantic conventions where one fits, in seconds, one gauge per quantile.
 */
public final class GoodputMetrics {

    private static final double[] QUANTILES = {0.5, 0.9, 0.95, 0.99, 0.999};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Gauge ttft = latency("gen_ai_server_time_to_first_token_seconds",
            "Time to first token (OTel gen_ai.server.time_to_first_token), from the intended send time, latest final window.");
    private final Gauge tpot = latency("gen_ai_server_time_per_output_token_seconds",
            "Time per output token (OTel gen_ai.server.time_per_output_token), request-weighted, latest final window.");
    private final Gauge e2e = latency("gen_ai_server_request_duration_seconds",
            "End-to-end request latency (OTel gen_ai.server.request.duration), latest final window.");
    private final Gauge itl = latency("goodput_inter_token_latency_seconds",
            "Gaps between consecutive content chunks (no OTel equivalent), latest final window.");
    private final Gauge ttfat = latency("goodput_time_to_first_answer_token_seconds",
            "Time to first answer (non-reasoning) token, latest final window.");
    private final Gauge goodput = gauge("goodput_good_requests_per_second", "Good requests per second.");
    private final Gauge goodTokens = gauge("goodput_good_output_tokens_per_second", "Output tokens of good requests per second.");
    private final Gauge goodFraction = gauge("goodput_good_fraction", "Good requests over all requests.");
    private final Gauge tokens = gauge("goodput_output_tokens_per_second", "Output tokens of OK requests per second.");
    private final Gauge requests = Gauge.builder().name("goodput_window_requests").help("Requests in the latest final window by status.")
            .labelNames("contract", "scenario", "status").register(registry);
    private final Gauge errors = Gauge.builder().name("goodput_window_errors").help("Non-OK requests in the latest final window by class.")
            .labelNames("contract", "scenario", "class").register(registry);
    private final Gauge windowEnd = gauge("goodput_window_end_timestamp_seconds", "End of the latest final window (event time).");
    private final Gauge costSuccessful = Gauge.builder().name("goodput_cost_per_successful_million_tokens_usd")
            .help("Cost per successful million output tokens (failures, overheads and headroom included).")
            .labelNames("contract", "scenario", "span").register(registry);
    private final Gauge costCompute = Gauge.builder().name("goodput_compute_cost_per_million_tokens_usd")
            .help("Compute-only cost per million output tokens at achieved throughput.")
            .labelNames("contract", "scenario", "span").register(registry);
    private final Gauge gpuPrice = Gauge.builder().name("goodput_usd_per_gpu_hour").help("GPU price applied.")
            .labelNames("contract", "scenario", "price_key").register(registry);
    public PrometheusRegistry registry() {
        return registry;
    }

    /** Every metric name this registry serves, as Prometheus sees it. */
    public List<String> names() {
        return registry.scrape().stream().map(MetricSnapshot::getMetadata).map(m -> m.getPrometheusName()).toList();
    }

    public void onWindow(WindowStats w) {
        if (w == null || !w.getIsFinal()) {
            return;
        }
        final String c = w.getContractId();
        final String s = w.getScenarioId();
        quantiles(ttft, c, s, w.getTtft());
        quantiles(tpot, c, s, w.getTpot());
        quantiles(e2e, c, s, w.getE2e());
        quantiles(itl, c, s, w.getItl());
        quantiles(ttfat, c, s, w.getTtfat());
        goodput.labelValues(c, s).set(w.getGoodputRps());
        goodTokens.labelValues(c, s).set(w.getGoodputTokensPerS());
        goodFraction.labelValues(c, s).set(w.getGoodFraction());
        tokens.labelValues(c, s).set(w.getOutputTokensPerS());
        requests.labelValues(c, s, "ok").set(w.getRequestsOk());
        requests.labelValues(c, s, "error").set(w.getRequestsError());
        requests.labelValues(c, s, "timeout").set(w.getRequestsTimeout());
        requests.labelValues(c, s, "abandoned").set(w.getRequestsAbandoned());
        for (Map.Entry<String, Long> e : w.getErrorsByClass().entrySet()) {
            errors.labelValues(c, s, e.getKey()).set(e.getValue());
        }
        windowEnd.labelValues(c, s).set(w.getWindowEndUs().toEpochMilli() / 1000.0);
    }

    public void onCost(CostRecord r) {
        if (r == null || !r.getPriced()) {
            return;
        }
        if (r.getCostPerSuccessfulMUsd() != null) {
            costSuccessful.labelValues(r.getContractId(), r.getScenarioId(), r.getSpan()).set(r.getCostPerSuccessfulMUsd());
        }
        if (r.getComputeCostPerMUsd() != null) {
            costCompute.labelValues(r.getContractId(), r.getScenarioId(), r.getSpan()).set(r.getComputeCostPerMUsd());
        }
        gpuPrice.labelValues(r.getContractId(), r.getScenarioId(), r.getPriceKey()).set(r.getUsdPerGpuHour());
    }

    private static void quantiles(Gauge g, String c, String s, LatencySummary l) {
        if (l.getCount() == 0) {
            return;
        }
        final long[] values = {l.getP50Us(), l.getP90Us(), l.getP95Us(), l.getP99Us(), l.getP999Us()};
        for (int i = 0; i < QUANTILES.length; i++) {
            g.labelValues(c, s, Double.toString(QUANTILES[i])).set(values[i] / 1e6);
        }
        g.labelValues(c, s, "1.0").set(l.getMaxUs() / 1e6);
    }

    private Gauge latency(String name, String help) {
        return Gauge.builder().name(name).help(help).labelNames("contract", "scenario", "quantile").register(registry);
    }

    private Gauge gauge(String name, String help) {
        return Gauge.builder().name(name).help(help).labelNames("contract", "scenario").register(registry);
    }

}

package dev.goodput.sink;

import java.util.Map;

import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Per-request measurements as the OpenTelemetry GenAI semantic conventions name client-side
 * ones, in Prometheus form as OTel's Prometheus translation writes them (dots to underscores, unit
 * suffix, {@code _total} on counters), with their advisory bucket boundaries. Each request is
 * observed once, from its verdict; ITL gaps, which no verdict carries, once per final window from
 * its exact ITL histogram. Goodput's own quantities carry {@code goodput_} names. Labels are
 * bounded: contract, scenario, model, provider, operation, target and a closed set of statuses,
 * error classes, objectives and DLQ reasons; never a request id.
 */
public final class ClientMetrics {

    /** OTel's advisory boundaries for gen_ai.client.operation.* durations, seconds. */
    static final double[] DURATION_BUCKETS = {0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,
        40.96, 81.92};
    /** OTel's advisory boundaries for gen_ai.client.token.usage. */
    static final double[] TOKEN_BUCKETS = {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
        16777216, 67108864};

    /** OTel attribute names as Prometheus labels, then Goodput's own. */
    static final String[] ATTRIBUTES = {"gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model",
        "server_address", "server_port", "goodput_scenario", "goodput_contract"};

    private final Map<String, Contract> contracts;
    private final Histogram duration;
    private final Histogram timeToFirstChunk;
    private final Histogram timePerOutputChunk;
    private final Histogram tokenUsage;
    private final Histogram tpot;
    private final Histogram timeToFirstAnswer;
    private final Counter requests;
    private final Counter verdicts;
    private final Counter failedObjectives;
    private final Counter refused;
    private final Counter lateEvents;

    public ClientMetrics(PrometheusRegistry registry, Map<String, Contract> contracts) {
        this.contracts = contracts;
        this.duration = seconds(registry, "gen_ai_client_operation_duration_seconds",
                "GenAI operation duration (OTel gen_ai.client.operation.duration): intended send to last content chunk, OK requests.");
        this.timeToFirstChunk = seconds(registry, "gen_ai_client_operation_time_to_first_chunk_seconds",
                "Time to the first content chunk (OTel gen_ai.client.operation.time_to_first_chunk), from the intended send, OK streams.");
        this.timePerOutputChunk = seconds(registry, "gen_ai_client_operation_time_per_output_chunk_seconds",
                "Time between consecutive content chunks (OTel gen_ai.client.operation.time_per_output_chunk): every ITL gap, "
                        + "added once per final window.");
        this.tokenUsage = Histogram.builder().name("gen_ai_client_token_usage")
                .help("Input and output tokens per request (OTel gen_ai.client.token.usage, unit {token}).")
                .classicUpperBounds(TOKEN_BUCKETS).classicOnly().labelNames(with("gen_ai_token_type")).register(registry);
        this.tpot = seconds(registry, "goodput_time_per_output_token_seconds",
                "Time per output token, (E2E - TTFT) / (output tokens - 1), OK requests with 2 or more output tokens.");
        this.timeToFirstAnswer = seconds(registry, "goodput_time_to_first_answer_token_seconds",
                "Time to the first answer (non-reasoning) chunk, from the intended send.");
        this.requests = Counter.builder().name("goodput_requests_total").help("Requests by status and error type (error_type empty when OK).")
                .labelNames(with("status", "error_type")).register(registry);
        this.verdicts = Counter.builder().name("goodput_verdicts_total")
                .help("Requests by verdict: good (every objective and the quality floor met) or not_good.")
                .labelNames(with("verdict")).register(registry);
        this.failedObjectives = Counter.builder().name("goodput_failed_objectives_total")
                .help("Objectives missed, by objective (status, ttft, tpot, e2el): a request may miss several.")
                .labelNames(with("objective")).register(registry);
        this.refused = Counter.builder().name("goodput_refused_events_total")
                .help("Records refused to the DLQ, by reason, counted once per final window (refused_events).")
                .labelNames("goodput_scenario", "goodput_contract", "reason").register(registry);
        this.lateEvents = Counter.builder().name("goodput_late_events_total")
                .help("Late records refused to the DLQ, counted once per final window (late_events).")
                .labelNames("goodput_scenario", "goodput_contract").register(registry);
    }

    private static Histogram seconds(PrometheusRegistry registry, String name, String help) {
        return Histogram.builder().name(name).help(help).unit(Unit.SECONDS).classicUpperBounds(DURATION_BUCKETS).classicOnly()
                .labelNames(ATTRIBUTES).register(registry);
    }

    private static String[] with(String... more) {
        final String[] all = java.util.Arrays.copyOf(ATTRIBUTES, ATTRIBUTES.length + more.length);
        System.arraycopy(more, 0, all, ATTRIBUTES.length, more.length);
        return all;
    }

    /** One request, once. */
    public void onVerdict(RequestVerdict v) {
        final String[] a = attributes(v.getContractId(), v.getScenarioId(), v.getTargetId(), v.getOperation());
        final boolean ok = v.getStatus() == RequestStatus.OK;
        if (ok && v.getE2eUs() != null) {
            duration.labelValues(a).observe(v.getE2eUs() / 1e6);
        }
        if (ok && v.getTtftUs() != null) {
            timeToFirstChunk.labelValues(a).observe(v.getTtftUs() / 1e6);
        }
        if (v.getTpotUs() != null) {
            tpot.labelValues(a).observe(v.getTpotUs() / 1e6);
        }
        if (v.getTtfatUs() != null) {
            timeToFirstAnswer.labelValues(a).observe(v.getTtfatUs() / 1e6);
        }
        if (v.getPromptTokens() != null) {
            tokenUsage.labelValues(append(a, "input")).observe(v.getPromptTokens());
        }
        if (ok) {
            tokenUsage.labelValues(append(a, "output")).observe(v.getOutputTokens());
        }
        final String status = v.getStatus().name().toLowerCase(java.util.Locale.ROOT);
        requests.labelValues(append(a, status, ok ? "" : v.getErrorClass() == null ? status : v.getErrorClass())).inc();
        verdicts.labelValues(append(a, v.getGood() ? "good" : "not_good")).inc();
        for (CharSequence o : v.getFailedObjectives()) {
            failedObjectives.labelValues(append(a, o.toString())).inc();
        }
    }

    /** A final window, once: its ITL gaps (exact, from its histogram), what it refused, its late events. */
    public void onFinalWindow(WindowStats w) {
        if (!w.getIsFinal()) {
            return;
        }
        final String contract = shortId(w.getContractId());
        if (w.getItl().getCount() > 0) {
            final String[] a = attributes(w.getContractId(), w.getScenarioId(), null, null);
            final java.nio.ByteBuffer b = w.getItl().getHistogram().duplicate();
            final byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            final var gaps = timePerOutputChunk.labelValues(a);
            final org.HdrHistogram.Histogram h;
            try {
                h = org.HdrHistogram.Histogram.decodeFromCompressedByteBuffer(java.nio.ByteBuffer.wrap(bytes), 0);
            } catch (java.util.zip.DataFormatException e) {
                throw new IllegalArgumentException("window " + w.getScenarioId() + " " + w.getWindowStartUs()
                        + ": ITL is not a compressed HdrHistogram", e);
            }
            for (HistogramIterationValue v : h.recordedValues()) {
                final double s = v.getValueIteratedTo() / 1e6;
                for (long i = 0; i < v.getCountAtValueIteratedTo(); i++) {
                    gaps.observe(s);
                }
            }
        }
        w.getRefusedEvents().forEach((reason, n) -> refused.labelValues(w.getScenarioId(), contract, reason).inc(n));
        if (w.getLateEvents() > 0) {
            lateEvents.labelValues(w.getScenarioId(), contract).inc(w.getLateEvents());
        }
    }

    /**
     * The OTel attributes of a request: operation, provider (the contract's runtime), request model,
     * server address and port (from the target id, an endpoint authority), scenario, short contract id.
     */
    String[] attributes(String contractId, String scenario, String targetId, String operation) {
        final Contract c = contracts.get(contractId);
        final String model = c == null ? "" : c.modelName();
        String provider = "";
        if (c != null && c.canonical().get("runtime") instanceof Map<?, ?> runtime && runtime.get("name") != null) {
            provider = runtime.get("name").toString();
        }
        String address = targetId == null ? "" : targetId;
        String port = "";
        final int colon = address.lastIndexOf(':');
        if (colon > 0 && colon < address.length() - 1 && address.substring(colon + 1).chars().allMatch(Character::isDigit)) {
            port = address.substring(colon + 1);
            address = address.substring(0, colon);
        }
        return new String[] {operation == null ? "" : operation, provider, model, address, port, scenario, shortId(contractId)};
    }

    static String shortId(String contractId) {
        return contractId.length() > 12 ? contractId.substring(0, 12) : contractId;
    }

    private static String[] append(String[] a, String... more) {
        final String[] all = java.util.Arrays.copyOf(a, a.length + more.length);
        System.arraycopy(more, 0, all, a.length, more.length);
        return all;
    }
}

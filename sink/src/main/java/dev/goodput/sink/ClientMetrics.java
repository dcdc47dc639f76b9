package dev.goodput.sink;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.records.LatencySummaries;
import io.opentelemetry.api.metrics.Meter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Per-request measurements as the OpenTelemetry GenAI semantic conventions name client-side
 * ones, with their advisory bucket boundaries, recorded into Prometheus (as OTel's Prometheus
 * translation writes them: dots to underscores, unit suffix, {@code _total} on counters) and,
 * when configured, into an OpenTelemetry meter exported over OTLP ({@link OtlpExport}). Each
 * request is observed once, from its verdict; ITL gaps, which no verdict carries, once per final
 * window from its exact ITL histogram, its distinct values with their counts (Prometheus's buckets
 * counted at once by {@link BucketCounts}; OTel's API takes one value a call). Goodput's own quantities carry {@code goodput.} names.
 * Attributes are bounded: contract, scenario, model, provider, operation, target and a closed set
 * of statuses, error classes, objectives and DLQ reasons; never a request id.
 */
public final class ClientMetrics {

    /** OTel's advisory boundaries for gen_ai.client.operation.* durations, seconds. */
    static final double[] DURATION_BUCKETS = {0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,
        40.96, 81.92};
    /** OTel's advisory boundaries for gen_ai.client.token.usage. */
    static final double[] TOKEN_BUCKETS = {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
        16777216, 67108864};

    /** The attributes every per-request instrument carries: OTel's, then Goodput's own. */
    static final List<String> ATTRIBUTES = List.of("gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model",
            "server.address", "server.port", "goodput.scenario", "goodput.contract");

    /** One instrument: its OTel name, unit and attributes; Prometheus names follow from them. */
    public enum Instrument {
        DURATION("gen_ai.client.operation.duration", "s", true, DURATION_BUCKETS,
                "GenAI operation duration (OTel gen_ai.client.operation.duration): intended send to last content chunk, OK requests."),
        TIME_TO_FIRST_CHUNK("gen_ai.client.operation.time_to_first_chunk", "s", true, DURATION_BUCKETS,
                "Time to the first content chunk (OTel gen_ai.client.operation.time_to_first_chunk), from the intended send, OK streams."),
        TIME_PER_OUTPUT_CHUNK("gen_ai.client.operation.time_per_output_chunk", "s", true, DURATION_BUCKETS,
                "Time between consecutive content chunks (OTel gen_ai.client.operation.time_per_output_chunk): every ITL gap, "
                        + "added once per final window."),
        TOKEN_USAGE("gen_ai.client.token.usage", "{token}", true, TOKEN_BUCKETS,
                "Input and output tokens per request (OTel gen_ai.client.token.usage).", "gen_ai.token.type"),
        TPOT("goodput.time_per_output_token", "s", true, DURATION_BUCKETS,
                "Time per output token, (E2E - TTFT) / (output tokens - 1), OK requests with 2 or more output tokens."),
        TIME_TO_FIRST_ANSWER("goodput.time_to_first_answer_token", "s", true, DURATION_BUCKETS,
                "Time to the first answer (non-reasoning) chunk, from the intended send."),
        REQUESTS("goodput.requests", "{request}", false, null, "Requests by status and error type (left out when OK).",
                "goodput.status", "error.type"),
        VERDICTS("goodput.verdicts", "{request}", false, null,
                "Requests by verdict: good (every objective and the quality floor met) or not_good.", "goodput.verdict"),
        FAILED_OBJECTIVES("goodput.failed_objectives", "{request}", false, null,
                "Objectives missed, by objective (status, incomplete, ttft, tpot, e2el): a request may miss several.", "goodput.objective"),
        REFUSED("goodput.refused_events", "{record}", false, null,
                "Records refused to the DLQ, by reason, counted once per final window (refused_events).", "goodput.reason"),
        LATE("goodput.late_events", "{record}", false, null,
                "Late records refused to the DLQ, counted once per final window (late_events)."),
        PROMPT_TOKENS("goodput.prompt_tokens", "{token}", false, null, "Prompt tokens of the OK requests whose server said how"
                + " many it served from its prefix cache, by goodput.cache: cache_read (gen_ai.usage.cache_read.input_tokens)"
                + " or uncached; counted once per final window. Hit rate: cache_read over both.", "goodput.cache");

        final String otelName;
        final String unit;
        final boolean histogram;
        final double[] buckets;
        final String help;
        final List<String> attributes;

        Instrument(String otelName, String unit, boolean histogram, double[] buckets, String help, String... extra) {
            this.otelName = otelName;
            this.unit = unit;
            this.histogram = histogram;
            this.buckets = buckets;
            this.help = help;
            final List<String> a = new ArrayList<>(ATTRIBUTES);
            a.addAll(List.of(extra));
            this.attributes = List.copyOf(a);
        }

        /** The Prometheus name, as OTel's Prometheus translation writes it. */
        String prometheusName() {
            final String base = otelName.replace('.', '_');
            if ("s".equals(unit)) {
                return base + "_seconds";
            }
            return histogram ? base : base + "_total";
        }

        static String label(String attribute) {
            return attribute.replace('.', '_');
        }
    }

    /** Where measurements go: Prometheus instruments, OTel instruments. */
    interface Recorder {
        void observe(Instrument i, String[] values, double value);

        /**
         * Every value of an exact histogram (in µs; recorded in seconds), as many times as it holds it.
         * By default one observation each; a recorder that can add a value's count at once does.
         */
        default void observeAll(Instrument i, String[] values, org.HdrHistogram.Histogram micros) {
            for (HistogramIterationValue v : micros.recordedValues()) {
                final double s = v.getValueIteratedTo() / 1e6;
                for (long k = 0; k < v.getCountAtValueIteratedTo(); k++) {
                    observe(i, values, s);
                }
            }
        }

        void add(Instrument i, String[] values, long n);
    }

    /**
     * ITL gaps between 1 and 50 ms, where OTel's advisory boundaries double from 10 to 80 ms: with
     * them, neighbouring boundaries are at most 1.33x apart from 3 ms up. The native histogram
     * (1.022x) is the exact one; TPOT keeps OTel's boundaries and its objective, so that a
     * text-format scrape of a large matrix stays under 1 MB.
     */
    static final double[] PER_TOKEN_STEPS = {0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.0075, 0.0125, 0.015, 0.025, 0.03, 0.05};

    private final Map<String, Contract> contracts;
    private final List<Recorder> recorders = new ArrayList<>();
    /** Operation and target last seen per contract and scenario, for the ITL gaps, which come from windows. */
    private final Map<String, String[]> seen = new ConcurrentHashMap<>();

    public ClientMetrics(PrometheusRegistry registry, Map<String, Contract> contracts) {
        this.contracts = contracts;
        recorders.add(new PrometheusRecorder(registry, classicBuckets(contracts.values())));
    }

    /**
     * Each histogram's classic boundaries: OTel's advisory ones, every objective the contracts set
     * for that quantity (so "within the objective" is a bucket count, not an interpolation), and
     * for ITL steps of 1 to 10 ms up to 50 ms.
     */
    static Map<Instrument, double[]> classicBuckets(Collection<Contract> contracts) {
        final Map<Instrument, double[]> out = new EnumMap<>(Instrument.class);
        for (Instrument i : Instrument.values()) {
            if (!i.histogram) {
                continue;
            }
            final TreeSet<Double> bounds = new TreeSet<>();
            Arrays.stream(i.buckets).forEach(bounds::add);
            if (i == Instrument.TIME_PER_OUTPUT_CHUNK) {
                Arrays.stream(PER_TOKEN_STEPS).forEach(bounds::add);
            }
            for (Contract c : contracts) {
                final Optional<Long> objective = switch (i) {
                    case TIME_TO_FIRST_CHUNK, TIME_TO_FIRST_ANSWER -> c.objectives().ttftUs();
                    case TPOT, TIME_PER_OUTPUT_CHUNK -> c.objectives().tpotUs();
                    case DURATION -> c.objectives().e2eUs();
                    default -> Optional.empty();
                };
                objective.ifPresent(us -> bounds.add(us / 1e6));
            }
            out.put(i, bounds.stream().mapToDouble(Double::doubleValue).toArray());
        }
        return out;
    }

    /** Also records into an OpenTelemetry meter (exported over OTLP). */
    public ClientMetrics alsoTo(Meter meter) {
        recorders.add(new OtlpExport.OtelRecorder(meter));
        return this;
    }

    private void observe(Instrument i, String[] values, double v) {
        for (Recorder r : recorders) {
            r.observe(i, values, v);
        }
    }

    private void add(Instrument i, String[] values, long n) {
        for (Recorder r : recorders) {
            r.add(i, values, n);
        }
    }

    /** One request, once. */
    public void onVerdict(RequestVerdict v) {
        final String[] a = attributes(v.getContractId(), v.getScenarioId(), v.getTargetId(), v.getOperation());
        seen.put(v.getContractId() + "\u0000" + v.getScenarioId(), a);
        final boolean ok = v.getStatus() == RequestStatus.OK;
        if (ok && v.getE2eUs() != null) {
            observe(Instrument.DURATION, a, v.getE2eUs() / 1e6);
        }
        if (ok && v.getTtftUs() != null) {
            observe(Instrument.TIME_TO_FIRST_CHUNK, a, v.getTtftUs() / 1e6);
        }
        if (v.getTpotUs() != null) {
            observe(Instrument.TPOT, a, v.getTpotUs() / 1e6);
        }
        if (v.getTtfatUs() != null) {
            observe(Instrument.TIME_TO_FIRST_ANSWER, a, v.getTtfatUs() / 1e6);
        }
        if (v.getPromptTokens() != null) {
            observe(Instrument.TOKEN_USAGE, append(a, "input"), v.getPromptTokens());
        }
        if (ok) {
            observe(Instrument.TOKEN_USAGE, append(a, "output"), v.getOutputTokens());
        }
        final String status = v.getStatus().name().toLowerCase(Locale.ROOT);
        add(Instrument.REQUESTS, append(a, status, ok ? "" : v.getErrorClass() == null ? status : v.getErrorClass()), 1);
        add(Instrument.VERDICTS, append(a, v.getGood() ? "good" : "not_good"), 1);
        for (CharSequence o : v.getFailedObjectives()) {
            add(Instrument.FAILED_OBJECTIVES, append(a, o.toString()), 1);
        }
    }

    /** A final window, once: its ITL gaps (exact, from its histogram), what it refused, its late events. */
    public void onFinalWindow(WindowStats w) {
        if (!w.getIsFinal()) {
            return;
        }
        // a window knows no target or operation: those of the scenario's requests, when the sink has seen one
        final String[] a = seen.getOrDefault(w.getContractId() + "\u0000" + w.getScenarioId(),
                attributes(w.getContractId(), w.getScenarioId(), null, null));
        if (w.getItl().getCount() > 0) {
            // the window's exact histogram, its distinct values with their counts: not one observation per gap
            final org.HdrHistogram.Histogram h = LatencySummaries.histogram(w.getItl());
            for (Recorder r : recorders) {
                r.observeAll(Instrument.TIME_PER_OUTPUT_CHUNK, a, h);
            }
        }
        w.getRefusedEvents().forEach((reason, n) -> add(Instrument.REFUSED, append(a, reason), n));
        if (w.getLateEvents() > 0) {
            add(Instrument.LATE, a, w.getLateEvents());
        }
        if (w.getCacheRequests() != null && w.getCacheRequests() > 0) {
            add(Instrument.PROMPT_TOKENS, append(a, "cache_read"), w.getCachedPromptTokens());
            add(Instrument.PROMPT_TOKENS, append(a, "uncached"), w.getCachePromptTokens() - w.getCachedPromptTokens());
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
        final String[] all = Arrays.copyOf(a, a.length + more.length);
        System.arraycopy(more, 0, all, a.length, more.length);
        return all;
    }
}

package dev.goodput.sink;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.goodput.config.ConfigException;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.sdk.metrics.Aggregation;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.DefaultAggregationSelector;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.resources.Resource;

/**
 * The per-request instruments of {@link ClientMetrics} pushed over OTLP (HTTP/protobuf) with the
 * OpenTelemetry Java SDK: to {@code --otlp-endpoint}, or to the standard
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT} (then {@code /v1/metrics}) or
 * {@code OTEL_EXPORTER_OTLP_METRICS_ENDPOINT}, with {@code OTEL_EXPORTER_OTLP_HEADERS} and
 * {@code OTEL_RESOURCE_ATTRIBUTES}; {@code service.name} and {@code service.version} are set.
 * Cumulative temporality, as Prometheus has it; histograms as base-2 exponential histograms.
 */
public final class OtlpExport implements AutoCloseable {

    /** Buckets per exponential histogram point; the SDK lowers the scale to stay within them. */
    static final int EXPONENTIAL_MAX_BUCKETS = 320;

    /** How often the SDK exports. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    private final SdkMeterProvider provider;
    private final Meter meter;
    private final String endpoint;

    public OtlpExport(String metricsEndpoint, Map<String, String> headers, Map<String, String> resourceAttributes,
                      String serviceName, Duration interval) {
        // exponential histograms: their quantiles are off by at most one bucket's width (2 % or less at the
        // scale 320 buckets allow over a factor of 5,000), where OTel's advisory boundaries double
        final var exporter = OtlpHttpMetricExporter.builder().setEndpoint(metricsEndpoint)
                .setDefaultAggregationSelector(DefaultAggregationSelector.getDefault().with(InstrumentType.HISTOGRAM,
                        Aggregation.base2ExponentialBucketHistogram(EXPONENTIAL_MAX_BUCKETS, 20)));
        headers.forEach(exporter::addHeader);
        final AttributesBuilder resource = Attributes.builder();
        resourceAttributes.forEach(resource::put);
        resource.put("service.name", serviceName);
        final String version = OtlpExport.class.getPackage().getImplementationVersion();
        resource.put("service.version", version == null ? "dev" : version);
        this.provider = SdkMeterProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(resource.build())))
                .registerMetricReader(PeriodicMetricReader.builder(exporter.build()).setInterval(interval).build())
                .build();
        this.meter = provider.get("dev.goodput.sink");
        this.endpoint = metricsEndpoint;
    }

    /**
     * The export the flag or the environment asks for, or null for none. The flag, like
     * {@code OTEL_EXPORTER_OTLP_ENDPOINT}, is the collector's base URL.
     */
    public static OtlpExport configured(String endpointFlag, Map<String, String> env, String serviceName) {
        final String endpoint;
        if (endpointFlag != null) {
            endpoint = metricsPath(endpointFlag);
        } else if (env.get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != null) {
            endpoint = env.get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
        } else if (env.get("OTEL_EXPORTER_OTLP_ENDPOINT") != null) {
            endpoint = metricsPath(env.get("OTEL_EXPORTER_OTLP_ENDPOINT"));
        } else {
            return null;
        }
        return new OtlpExport(endpoint, pairs(env.get("OTEL_EXPORTER_OTLP_HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS"),
                pairs(env.get("OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES"), serviceName, DEFAULT_INTERVAL);
    }

    static String metricsPath(String base) {
        return (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/v1/metrics";
    }

    /** {@code k=v,k2=v2} (values URL-decoded), as the OTel environment variables write them. */
    static Map<String, String> pairs(String s, String name) {
        final Map<String, String> out = new LinkedHashMap<>();
        if (s == null || s.isBlank()) {
            return out;
        }
        for (String kv : s.split(",")) {
            final int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new ConfigException("environment variable", name, List.of("'" + kv.trim() + "' is not key=value (write k1=v1,k2=v2)"));
            }
            out.put(kv.substring(0, eq).trim(), URLDecoder.decode(kv.substring(eq + 1).trim(),
                    StandardCharsets.UTF_8));
        }
        return out;
    }

    public Meter meter() {
        return meter;
    }

    public String endpoint() {
        return endpoint;
    }

    /** Exports what has been recorded now (tests, and a clean stop). */
    public void flush() {
        provider.forceFlush().join(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        flush();
        provider.close();
    }

    /** The instruments in an OpenTelemetry meter. */
    static final class OtelRecorder implements ClientMetrics.Recorder {
        private final Map<ClientMetrics.Instrument, DoubleHistogram> histograms = new EnumMap<>(ClientMetrics.Instrument.class);
        private final Map<ClientMetrics.Instrument, LongCounter> counters = new EnumMap<>(ClientMetrics.Instrument.class);

        OtelRecorder(Meter meter) {
            for (ClientMetrics.Instrument i : ClientMetrics.Instrument.values()) {
                if (i.histogram) {
                    histograms.put(i, meter.histogramBuilder(i.otelName).setUnit(i.unit).setDescription(i.help)
                            .setExplicitBucketBoundariesAdvice(Arrays.stream(i.buckets).boxed().toList()).build());
                } else {
                    counters.put(i, meter.counterBuilder(i.otelName).setUnit(i.unit).setDescription(i.help).build());
                }
            }
        }

        private static Attributes attributes(ClientMetrics.Instrument i, String[] values) {
            final AttributesBuilder b = Attributes.builder();
            final List<String> names = i.attributes;
            for (int k = 0; k < names.size(); k++) {
                final String v = values[k];
                if (v == null || v.isEmpty()) {
                    continue; // an attribute that does not apply is left out, not sent empty
                }
                if (names.get(k).equals("server.port")) {
                    b.put(names.get(k), Long.parseLong(v));
                } else {
                    b.put(names.get(k), v);
                }
            }
            return b.build();
        }

        @Override
        public void observe(ClientMetrics.Instrument i, String[] values, double value) {
            histograms.get(i).record(value, attributes(i, values));
        }

        @Override
        public void add(ClientMetrics.Instrument i, String[] values, long n) {
            counters.get(i).add(n, attributes(i, values));
        }
    }
}

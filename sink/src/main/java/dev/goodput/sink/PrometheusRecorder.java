package dev.goodput.sink;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.goodput.sink.ClientMetrics.Instrument;
import io.prometheus.metrics.core.metrics.Counter;
import org.HdrHistogram.HistogramIterationValue;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * {@link ClientMetrics}' instruments in a Prometheus registry: each histogram both native
 * (exponential buckets, schema 5: neighbouring boundaries 2.2 % apart, so a quantile is off by at
 * most that) and classic (the boundaries {@link ClientMetrics#classicBuckets} gives, for scrapers
 * without native support). Series are written without the labels whose value is unknown or does
 * not apply (an OK request's {@code error_type}, a target without a port): the client library
 * fixes a metric's label names, so this collector drops the empty ones from each scrape, as
 * OpenTelemetry leaves an attribute out rather than sending it empty.
 */
final class PrometheusRecorder implements ClientMetrics.Recorder, MultiCollector {

    /** Native resolution: 2^(2^-5) = 1.0219 between neighbouring boundaries. */
    static final int NATIVE_SCHEMA = 5;
    /**
     * Buckets per series before the library halves the resolution: at schema 5, 400 buckets span
     * a factor of 2^12.5 (about 5,800: 1 ms to 5.8 s) without losing resolution.
     */
    static final int NATIVE_MAX_BUCKETS = 400;

    private final Map<Instrument, Histogram> histograms = new EnumMap<>(Instrument.class);
    private final Map<Instrument, Counter> counters = new EnumMap<>(Instrument.class);
    private final Map<Instrument, double[]> classicBounds = new EnumMap<>(Instrument.class);
    /** Series added a histogram at a time ({@link #observeAll}), by instrument and label values. */
    private final Map<Instrument, Map<List<String>, BucketCounts>> added = new ConcurrentHashMap<>();

    PrometheusRecorder(PrometheusRegistry registry, Map<Instrument, double[]> classicBuckets) {
        for (Instrument i : Instrument.values()) {
            final String[] labels = i.attributes.stream().map(Instrument::label).toArray(String[]::new);
            if (i.histogram) {
                final var b = Histogram.builder().name(i.prometheusName()).help(i.help).labelNames(labels)
                        .classicUpperBounds(classicBuckets.get(i))
                        .nativeInitialSchema(NATIVE_SCHEMA).nativeMaxNumberOfBuckets(NATIVE_MAX_BUCKETS);
                if ("s".equals(i.unit)) {
                    b.unit(Unit.SECONDS);
                }
                histograms.put(i, b.build());
                final double[] bounds = classicBuckets.get(i);
                final double[] withInf = Arrays.copyOf(bounds, bounds.length + 1);
                withInf[bounds.length] = Double.POSITIVE_INFINITY;
                classicBounds.put(i, withInf);
            } else {
                counters.put(i, Counter.builder().name(i.prometheusName()).help(i.help).labelNames(labels).build());
            }
        }
        registry.register(this);
    }

    @Override
    public void observe(Instrument i, String[] values, double value) {
        histograms.get(i).labelValues(values).observe(value);
    }

    /** A histogram's buckets emitted from its distinct values and their counts, as the client would count them. */
    @Override
    public void observeAll(Instrument i, String[] values, org.HdrHistogram.Histogram micros) {
        final BucketCounts series = added.computeIfAbsent(i, k -> new ConcurrentHashMap<>()).computeIfAbsent(List.of(values),
                k -> new BucketCounts(classicBounds.get(i), NATIVE_SCHEMA, NATIVE_MAX_BUCKETS));
        for (HistogramIterationValue v : micros.recordedValues()) {
            series.add(v.getValueIteratedTo() / 1e6, v.getCountAtValueIteratedTo());
        }
    }

    @Override
    public void add(Instrument i, String[] values, long n) {
        counters.get(i).labelValues(values).inc(n);
    }

    @Override
    public MetricSnapshots collect() {
        final List<MetricSnapshot> out = new ArrayList<>();
        for (Map.Entry<Instrument, Histogram> e : histograms.entrySet()) {
            final HistogramSnapshot s = e.getValue().collect();
            final List<HistogramDataPointSnapshot> points = new ArrayList<>();
            final String[] names = e.getKey().attributes.stream().map(Instrument::label).toArray(String[]::new);
            added.getOrDefault(e.getKey(), Map.of()).forEach((values, series) ->
                    points.add(series.snapshot(known(Labels.of(names, values.toArray(String[]::new))))));
            for (HistogramDataPointSnapshot p : s.getDataPoints()) {
                points.add(new HistogramDataPointSnapshot(p.getClassicBuckets(), p.getNativeSchema(), p.getNativeZeroCount(),
                        p.getNativeZeroThreshold(), p.getNativeBucketsForPositiveValues(), p.getNativeBucketsForNegativeValues(),
                        p.getSum(), known(p.getLabels()), p.getExemplars(), p.getCreatedTimestampMillis(),
                        p.getScrapeTimestampMillis()));
            }
            out.add(new HistogramSnapshot(s.isGaugeHistogram(), s.getMetadata(), points));
        }
        for (Counter c : counters.values()) {
            final CounterSnapshot s = c.collect();
            final List<CounterDataPointSnapshot> points = new ArrayList<>();
            for (CounterDataPointSnapshot p : s.getDataPoints()) {
                points.add(new CounterDataPointSnapshot(p.getValue(), known(p.getLabels()), p.getExemplar(),
                        p.getCreatedTimestampMillis(), p.getScrapeTimestampMillis()));
            }
            out.add(new CounterSnapshot(s.getMetadata(), points));
        }
        return new MetricSnapshots(out);
    }

    /** The labels with a value: an empty one is left out, never written as {@code name=""}. */
    static Labels known(Labels labels) {
        final List<String> names = new ArrayList<>();
        final List<String> values = new ArrayList<>();
        for (int k = 0; k < labels.size(); k++) {
            if (!labels.getValue(k).isEmpty()) {
                names.add(labels.getName(k));
                values.add(labels.getValue(k));
            }
        }
        return names.size() == labels.size() ? labels : Labels.of(names, values);
    }
}

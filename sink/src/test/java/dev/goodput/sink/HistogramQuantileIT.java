package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import dev.goodput.avro.LatencySummary;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.definitions.Histograms;
import dev.goodput.sink.ClientMetrics.Instrument;
import dev.goodput.testing.SampleRecords;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink's per-request histograms through two real Prometheus servers (Debian's 2.42) scraping
 * the same endpoint: one with {@code --enable-feature=native-histograms} (protobuf scrape, native
 * histograms), one without (text scrape, classic buckets). Two "minutes" of requests with different
 * distributions; for each, {@code histogram_quantile(0.99, rate(x[span]))} over exactly that span's
 * scrapes is set against the exact p99 of the same observations (HdrHistogram, as the report
 * computes it), for TTFT, TPOT, ITL and E2E. Native: within one native bucket (2.2 %) plus
 * HdrHistogram's 0.1 %, so well within the 5 % bar. Classic: inside the bucket that holds the exact
 * value, which is the error docs/operations.md states for scrapers without native support.
 */
class HistogramQuantileIT {

    private static final Contract CONTRACT = ContractLoader.load(Path.of("../config/contract.yaml"));
    /** One native bucket at schema 5 (2^(1/32) - 1 = 2.19 %) plus HdrHistogram's 3 significant digits. */
    static final double NATIVE_ERROR = 0.0219 + 0.001;

    /** The observations of one span, per quantity, in microseconds, with their exact histogram. */
    private record Span(Map<Instrument, Histogram> exact) {
    }

    @Test
    void nativeQuantilesMatchTheExactP99AndClassicOnesStayInTheirBucket(@TempDir Path dir) throws Exception {
        RealPrometheus.assumeInstalled();
        final PrometheusRegistry registry = new PrometheusRegistry();
        final ClientMetrics metrics = new ClientMetrics(registry, Map.of(CONTRACT.id(), CONTRACT));
        try (HTTPServer server = HTTPServer.builder().inetAddress(InetAddress.getLoopbackAddress()).port(0).registry(registry)
                .buildAndStart()) {
            final String target = "127.0.0.1:" + server.getPort();
            final Random random = new Random(34);
            // a few observations first, so that every series exists before the spans measured
            final Span warm = observe(metrics, random, 20, 500, 1.0);
            try (RealPrometheus nat = new RealPrometheus(dir.resolve("native"), target, "--enable-feature=native-histograms");
                 RealPrometheus classic = new RealPrometheus(dir.resolve("classic"), target)) {
                final List<Span> spans = new ArrayList<>();
                final Map<Instrument, Long> totals = new LinkedHashMap<>();
                add(totals, warm);
                double lastNative = scrapes(nat, totals, true);
                double lastClassic = scrapes(classic, totals, false);
                // two spans: a fast one, then a slow one with a heavy tail
                final double[] scale = {1.0, 4.0};
                final List<String> report = new ArrayList<>();
                for (int k = 0; k < 2; k++) {
                    final Span span = observe(metrics, random, 2_000, 40_000, scale[k]);
                    spans.add(span);
                    add(totals, span);
                    final double nowNative = scrapes(nat, totals, true);
                    final double nowClassic = scrapes(classic, totals, false);
                    for (Instrument i : span.exact().keySet()) {
                        final double exact = Histograms.percentiles(span.exact().get(i)).p99() / 1e6;
                        final double q = quantile(nat, i, true, nowNative, nowNative - lastNative);
                        final double c = quantile(classic, i, false, nowClassic, nowClassic - lastClassic);
                        final double[] bucket = bucket(i, exact);
                        report.add(String.format(Locale.ROOT, "span %d %-42s exact p99 %.6f s, native %.6f (%+.2f %%), "
                                + "classic %.6f (%+.2f %%, bucket (%.4f, %.4f])", k + 1, i.prometheusName(), exact, q,
                                100 * (q / exact - 1), c, 100 * (c / exact - 1), bucket[0], bucket[1]));
                        assertThat(Math.abs(q / exact - 1)).as("native p99 of %s, span %d: %s", i, k + 1, report.get(report.size() - 1))
                                .isLessThanOrEqualTo(NATIVE_ERROR);
                        assertThat(c).as("classic p99 of %s, span %d: %s", i, k + 1, report.get(report.size() - 1))
                                .isBetween(bucket[0], bucket[1]);
                    }
                    lastNative = nowNative;
                    lastClassic = nowClassic;
                }
                report.forEach(System.out::println);
                // the spans differ, so a query over the wrong scrapes would not pass by chance
                assertThat(Histograms.percentiles(spans.get(1).exact().get(Instrument.TIME_TO_FIRST_CHUNK)).p99())
                        .isGreaterThan(2 * Histograms.percentiles(spans.get(0).exact().get(Instrument.TIME_TO_FIRST_CHUNK)).p99());
            }
        }
    }

    /**
     * {@code requests} verdicts and one final window of {@code gaps} ITL gaps: TTFT log-normal around
     * 40 ms, TPOT around 12 ms, E2E around 1.5 s, gaps of 8-12 ms with 3 % stalls of 40-80 ms, every
     * time multiplied by {@code scale}.
     */
    private static Span observe(ClientMetrics metrics, Random random, int requests, int gaps, double scale) {
        final Map<Instrument, Histogram> exact = new LinkedHashMap<>();
        for (Instrument i : List.of(Instrument.TIME_TO_FIRST_CHUNK, Instrument.TPOT, Instrument.DURATION,
                Instrument.TIME_PER_OUTPUT_CHUNK)) {
            exact.put(i, Histograms.request());
        }
        for (int r = 0; r < requests; r++) {
            final long ttft = Math.round(40_000 * scale * Math.exp(0.6 * random.nextGaussian()));
            final double tpot = 12_000 * scale * (1 + 0.15 * Math.abs(random.nextGaussian()));
            final long e2e = Math.round(1_500_000 * scale * Math.exp(0.3 * random.nextGaussian()));
            // what the sink observes is what the exact histogram holds, to the microsecond
            Histograms.record(exact.get(Instrument.TIME_TO_FIRST_CHUNK), ttft);
            Histograms.record(exact.get(Instrument.TPOT), Math.round(tpot));
            Histograms.record(exact.get(Instrument.DURATION), e2e);
            metrics.onVerdict(RequestVerdict.newBuilder(SampleRecords.verdict()).setContractId(CONTRACT.id()).setScenarioId("s")
                    .setRequestId("r" + r).setStatus(RequestStatus.OK).setErrorClass(null).setTtftUs(ttft)
                    .setTpotUs((double) Math.round(tpot)).setE2eUs(e2e).setTtfatUs(null).setOperation("chat")
                    .setTargetId("127.0.0.1:8000").setPromptTokens(64).setGood(true).build());
        }
        final Histogram itl = new Histogram(Histograms.MAX_TOKEN_LATENCY_US, Histograms.SIGNIFICANT_DIGITS);
        for (int g = 0; g < gaps; g++) {
            final double us = random.nextDouble() < 0.03 ? 40_000 + 40_000 * random.nextDouble() : 8_000 + 4_000 * random.nextDouble();
            itl.recordValue(Math.round(us * scale));
        }
        // the sink observes each gap at its bucket's highest equivalent value: so does the exact side
        itl.recordedValues().forEach(v -> exact.get(Instrument.TIME_PER_OUTPUT_CHUNK)
                .recordValueWithCount(v.getValueIteratedTo(), v.getCountAtValueIteratedTo()));
        final ByteBuffer b = ByteBuffer.allocate(itl.getNeededByteBufferCapacity());
        itl.encodeIntoCompressedByteBuffer(b);
        b.flip();
        final LatencySummary summary = LatencySummary.newBuilder(SampleRecords.summary(10_000)).setCount(itl.getTotalCount())
                .setHistogram(b).build();
        metrics.onFinalWindow(WindowStats.newBuilder(SampleRecords.windowStats()).setContractId(CONTRACT.id()).setScenarioId("s")
                .setIsFinal(true).setItl(summary).setLateEvents(0).setRefusedEvents(Map.of()).build());
        return new Span(exact);
    }

    private static void add(Map<Instrument, Long> totals, Span span) {
        span.exact().forEach((i, h) -> totals.merge(i, h.getTotalCount(), Long::sum));
    }

    /** The first scrape at which every quantity shows its total so far; all four come from that one scrape. */
    private static double scrapes(RealPrometheus p, Map<Instrument, Long> totals, boolean nativeHistograms) throws Exception {
        double at = 0;
        for (Map.Entry<Instrument, Long> e : totals.entrySet()) {
            final String name = e.getKey().prometheusName();
            at = Math.max(at, p.firstScrapeWith(nativeHistograms ? name : name + "_count", e.getValue()));
        }
        return at;
    }

    private static double quantile(RealPrometheus p, Instrument i, boolean nativeHistograms, double at, double spanS) throws Exception {
        final String range = "[" + Math.round(spanS * 1000) + "ms]";
        final String q = nativeHistograms
                ? "histogram_quantile(0.99, sum(rate(" + i.prometheusName() + range + ")))"
                : "histogram_quantile(0.99, sum by (le) (rate(" + i.prometheusName() + "_bucket" + range + ")))";
        return p.value(q, at);
    }

    /** The classic bucket (lower, upper] that holds {@code v}. */
    private static double[] bucket(Instrument i, double v) {
        double lower = 0;
        double upper = Double.POSITIVE_INFINITY;
        for (double b : ClientMetrics.classicBuckets(List.of(CONTRACT)).get(i)) {
            if (b < v) {
                lower = b;
            } else {
                upper = Math.min(upper, b);
            }
        }
        return new double[] {lower, upper};
    }
}

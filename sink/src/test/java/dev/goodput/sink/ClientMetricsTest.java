package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.goodput.avro.LatencySummary;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.testing.SampleRecords;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The metrics endpoint's families as Prometheus reads them: per-request histograms under OTel GenAI
 * client names with their required attributes, fed once per verdict; window results as gauges that
 * go when their scenario stops; and Debian's {@code promtool check metrics} accepts the scrape.
 */
class ClientMetricsTest {

    private static final Contract CONTRACT = ContractLoader.load(Path.of("../config/contract.yaml"));
    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");

    private static RequestVerdict verdict(int i, RequestStatus status) {
        return RequestVerdict.newBuilder(SampleRecords.verdict()).setContractId(CONTRACT.id()).setScenarioId("p128-o64-r10-cold")
                .setRequestId("r" + i).setStatus(status).setErrorClass(status == RequestStatus.OK ? null : "http_503")
                .setTtftUs(status == RequestStatus.OK ? 100_000L + i * 10_000L : null)
                .setE2eUs(status == RequestStatus.OK ? 1_000_000L + i * 10_000L : null)
                .setTpotUs(status == RequestStatus.OK ? 12_000.0 : null).setTtfatUs(null)
                .setFailedObjectives(status == RequestStatus.OK ? List.of() : List.of("status")).setGood(status == RequestStatus.OK)
                .setTargetId("10.0.0.7:8000").setPromptTokens(128).setOperation("chat").setOutputTokens(64).build();
    }

    private static String scrape(PrometheusRegistry r) throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        new PrometheusTextFormatWriter(false).write(out, r.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void eachVerdictIsOneObservationUnderOtelClientNamesWithTheRequiredAttributes() throws Exception {
        final GoodputMetrics gauges = new GoodputMetrics();
        final ClientMetrics m = new ClientMetrics(gauges.registry(), Map.of(CONTRACT.id(), CONTRACT));
        for (int i = 0; i < 40; i++) {
            m.onVerdict(verdict(i, i % 10 == 9 ? RequestStatus.ERROR : RequestStatus.OK));
        }
        final String text = scrape(gauges.registry());
        final String[] attrs = {"gen_ai_operation_name=\"chat\"", "gen_ai_provider_name=\"goodput-simulator\"",
            "gen_ai_request_model=\"goodput/simulated-8b-instruct\"", "goodput_contract=\"" + CONTRACT.id().substring(0, 12) + "\"",
            "goodput_scenario=\"p128-o64-r10-cold\"", "server_address=\"10.0.0.7\"", "server_port=\"8000\""};
        assertThat(text).contains("# TYPE gen_ai_client_operation_time_to_first_chunk_seconds histogram")
                .contains("# TYPE gen_ai_client_operation_duration_seconds histogram")
                .contains("# TYPE gen_ai_client_token_usage histogram").doesNotContain("quantile=");
        assertThat(value(text, "gen_ai_client_operation_time_to_first_chunk_seconds_count", attrs)).isEqualTo("36");
        assertThat(value(text, "gen_ai_client_operation_duration_seconds_count", attrs)).isEqualTo("36");
        // TTFT 100..450 ms in 10 ms steps: the 0.16 s bucket holds the 7 of 100..160 ms
        assertThat(value(text, "gen_ai_client_operation_time_to_first_chunk_seconds_bucket", with(attrs, "le=\"0.16\""))).isEqualTo("7");
        assertThat(value(text, "gen_ai_client_token_usage_count", with(attrs, "gen_ai_token_type=\"input\""))).isEqualTo("40");
        assertThat(value(text, "gen_ai_client_token_usage_count", with(attrs, "gen_ai_token_type=\"output\""))).isEqualTo("36");
        assertThat(value(text, "goodput_requests_total", with(attrs, "goodput_status=\"error\"", "error_type=\"http_503\"")))
                .isEqualTo("4.0");
        // an OK request has no error type: the label is left out, not written empty
        assertThat(value(text, "goodput_requests_total", with(attrs, "goodput_status=\"ok\""))).isEqualTo("36.0");
        assertThat(value(text, "goodput_verdicts_total", with(attrs, "goodput_verdict=\"good\""))).isEqualTo("36.0");
        assertThat(value(text, "goodput_failed_objectives_total", with(attrs, "goodput_objective=\"status\""))).isEqualTo("4.0");
        assertThat(text).doesNotContain("=\"\"");
        // the contract's objectives are classic boundaries: TTFT 500 ms, TPOT 50 ms, E2E 10 s
        assertThat(value(text, "gen_ai_client_operation_time_to_first_chunk_seconds_bucket", with(attrs, "le=\"0.5\""))).isEqualTo("36");
        assertThat(text).containsPattern("goodput_time_per_output_token_seconds_bucket\\{[^}]*le=\"0.05\"")
                .containsPattern("gen_ai_client_operation_duration_seconds_bucket\\{[^}]*le=\"10.0\"");
        promtool(text);
    }

    @Test
    void aFinalWindowsItlGapsAreAddedOnceFromItsHistogramAndItsRefusalsCounted() throws Exception {
        final GoodputMetrics gauges = new GoodputMetrics();
        final ClientMetrics m = new ClientMetrics(gauges.registry(), Map.of(CONTRACT.id(), CONTRACT));
        final Histogram h = new Histogram(3_600_000_000L, 3);
        for (int i = 0; i < 1_000; i++) {
            h.recordValue(i < 900 ? 15_000 : 90_000);
        }
        final ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        h.encodeIntoCompressedByteBuffer(b);
        b.flip();
        final LatencySummary itl = LatencySummary.newBuilder(SampleRecords.summary(15_000)).setCount(1_000).setHistogram(b).build();
        final WindowStats w = WindowStats.newBuilder(SampleRecords.windowStats()).setContractId(CONTRACT.id()).setScenarioId("s1")
                .setItl(itl).setLateEvents(2).setRefusedEvents(Map.of("late", 2L, "duplicate", 1L)).build();
        m.onFinalWindow(w);
        gauges.onWindow(w);
        String text = scrape(gauges.registry());
        // no request of the scenario seen yet: operation and server are unknown, left out rather than empty
        assertThat(text).doesNotContain("=\"\"");
        m.onVerdict(RequestVerdict.newBuilder(verdict(1, RequestStatus.OK)).setScenarioId("s1").build());
        m.onFinalWindow(w);
        text = scrape(gauges.registry());
        // then the gaps carry the scenario's operation and server, as OTel requires of time_per_output_chunk
        assertThat(text).containsPattern("gen_ai_client_operation_time_per_output_chunk_seconds_count\\{gen_ai_operation_name=\"chat\""
                + "[^}]*server_address=\"10.0.0.7\",server_port=\"8000\"\\} 1000\\b");
        // the ITL steps between 1 and 50 ms: 15 ms gaps (HdrHistogram's 15,007 us) counted at the 0.02 boundary, not at 0.015
        assertThat(text).containsPattern("gen_ai_client_operation_time_per_output_chunk_seconds_bucket\\{[^}]*le=\"0.015\"\\} 0\\b")
                .doesNotContain("=\"\"");
        assertThat(text).containsPattern("gen_ai_client_operation_time_per_output_chunk_seconds_bucket\\{[^}]*le=\"0.02\"\\} 900\\b")
                .containsPattern("gen_ai_client_operation_time_per_output_chunk_seconds_count\\{[^}]*\\} 1000\\b")
                .containsPattern("goodput_refused_events_total\\{[^}]*goodput_reason=\"duplicate\"[^}]*\\} 1.0")
                .containsPattern("goodput_late_events_total\\{[^}]*\\} 2.0")
                .contains("goodput_window_errors{error_type=\"http_503\"");
        // the next window of the scenario has no http_503: the class goes, it does not keep its old count
        gauges.onWindow(WindowStats.newBuilder(w).setErrorsByClass(Map.of("timeout", 1L)).setCacheRequests(4L)
                .setCachePromptTokens(4_000L).setCachedPromptTokens(3_000L).setCacheHitRate(0.75).build());
        assertThat(scrape(gauges.registry())).doesNotContain("error_type=\"http_503\"").contains("error_type=\"timeout\"")
                .containsPattern("goodput_prefix_cache_hit_ratio\\{[^}]*goodput_scenario=\"s1\"[^}]*\\} 0.75");
        // the same counts as a counter by cache_read / uncached, for a rate over any span and for OTLP
        m.onFinalWindow(WindowStats.newBuilder(w).setCacheRequests(4L).setCachePromptTokens(4_000L).setCachedPromptTokens(3_000L)
                .setCacheHitRate(0.75).build());
        assertThat(scrape(gauges.registry())).containsPattern("goodput_prompt_tokens_total\\{[^}]*goodput_cache=\"cache_read\"[^}]*\\} 3000")
                .containsPattern("goodput_prompt_tokens_total\\{[^}]*goodput_cache=\"uncached\"[^}]*\\} 1000");
        // a window whose server said nothing of its cache: no hit ratio, rather than an old one or 0
        gauges.onWindow(WindowStats.newBuilder(w).setErrorsByClass(Map.of("timeout", 1L)).build());
        assertThat(scrape(gauges.registry())).doesNotContain("goodput_prefix_cache_hit_ratio{");
        // a scenario without a final window for the stale time leaves the endpoint
        assertThat(gauges.expire(System.nanoTime() + GoodputMetrics.DEFAULT_STALE_AFTER.toNanos())).isEqualTo(1);
        assertThat(scrape(gauges.registry())).doesNotContain("goodput_good_fraction{").doesNotContain("goodput_window_errors{");
        promtool(text);
    }

    @Test
    void aScrapeOfEightScenariosTwoModelsAndTwoContractsStaysUnderOneMegabyte() throws Exception {
        final GoodputMetrics gauges = new GoodputMetrics();
        final Map<String, Contract> contracts = new HashMap<>();
        for (String model : List.of("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-32B")) {
            for (int k = 0; k < 2; k++) {
                final String id = Integer.toHexString((model + k).hashCode()).repeat(8).substring(0, 64);
                contracts.put(id, new Contract(id, CONTRACT.canonicalJson(), CONTRACT.canonical(), model, CONTRACT.modelRevision(),
                        CONTRACT.tokenizerName(), CONTRACT.corpus(), CONTRACT.outputCapTokens(), CONTRACT.decoding(),
                        CONTRACT.hardware(), CONTRACT.cacheState(), CONTRACT.arrival(), CONTRACT.quality(), CONTRACT.objectives()));
            }
        }
        final ClientMetrics m = new ClientMetrics(gauges.registry(), contracts);
        JvmMetrics.builder().register(gauges.registry());
        int n = 0;
        for (String id : contracts.keySet()) {
            for (int sc = 0; sc < 8; sc++) {
                for (RequestStatus status : List.of(RequestStatus.OK, RequestStatus.ERROR, RequestStatus.TIMEOUT)) {
                    m.onVerdict(RequestVerdict.newBuilder(verdict(n++, status)).setContractId(id).setScenarioId("p128-o64-r" + sc + "-cold")
                            .setFailedObjectives(status == RequestStatus.OK ? List.of("ttft") : List.of("status")).build());
                }
                final WindowStats w = WindowStats.newBuilder(SampleRecords.windowStats()).setContractId(id)
                        .setScenarioId("p128-o64-r" + sc + "-cold").setRefusedEvents(Map.of("late", 1L, "duplicate", 1L)).build();
                gauges.onWindow(w);
            }
        }
        final String text = scrape(gauges.registry());
        final int bytes = text.getBytes(StandardCharsets.UTF_8).length;
        System.out.printf(Locale.ROOT, "scrape of 8 scenarios x 2 models x 2 contracts (every status, objective and"
                + " window gauge, JVM metrics): %,d bytes, %,d lines%n", bytes, text.lines().count());
        assertThat(bytes).isLessThan(1_000_000);
        promtool(text);
    }

    /** The value of the one sample of {@code name} that carries every label given. */
    private static String value(String text, String name, String... labels) {
        final List<String> found = text.lines().filter(l -> l.startsWith(name + "{"))
                .filter(l -> Arrays.stream(labels).allMatch(l::contains)).toList();
        assertThat(found).as(name + " with " + String.join(",", labels)).hasSize(1);
        return found.get(0).substring(found.get(0).lastIndexOf(' ') + 1);
    }

    private static String[] with(String[] a, String... more) {
        final String[] all = Arrays.copyOf(a, a.length + more.length);
        System.arraycopy(more, 0, all, a.length, more.length);
        return all;
    }

    /** Debian's promtool must accept the scrape; it is installed in CI, where its absence fails the test. */
    static void promtool(String text) throws Exception {
        if (!Files.isExecutable(PROMTOOL)) {
            assertThat(System.getenv("CI")).as("promtool is required in CI (apt-get install prometheus)").isNotEqualTo("true");
            Assumptions.abort("Debian's promtool is not installed");
        }
        final Process p = new ProcessBuilder(PROMTOOL.toString(), "check", "metrics").redirectErrorStream(true).start();
        p.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        final String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("promtool check metrics said:\n" + said).isZero();
    }
}

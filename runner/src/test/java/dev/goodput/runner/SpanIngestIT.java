package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.contract.load.Corpus;
import dev.goodput.definitions.Micros;
import dev.goodput.generator.Generator;
import dev.goodput.generator.load.LoadRun;
import dev.goodput.generator.load.Scenario;
import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.report.DeadLetterCounts;
import dev.goodput.report.TopicSnapshot;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import dev.goodput.sink.PricesFile;
import dev.goodput.sink.SinkApp;
import dev.goodput.sink.SinkConfig;
import dev.goodput.streams.StreamsApp;
import dev.goodput.streams.StreamsSettings;
import dev.goodput.assembly.time.LogClock;
import dev.goodput.topics.Topics;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Span ingest on a real broker, through the streams-app, the sink and the report. The generator
 * drives the simulator; each of its requests is then told again as a span by the official
 * OpenTelemetry SDK, the way vLLM's tracing tells it (run "spans-vllm") and the way the GenAI
 * semantic conventions tell it (run "spans-semconv"), into {@code goodput spans} in a child JVM.
 * What spans carry gives the same verdicts, windows and cost as the generator's own events; what
 * they do not carry (ITL, and the text quality is judged on) is absent and said so in the report.
 */
class SpanIngestIT {
    private static final Path CONTRACT = Path.of("../config/contract.yaml");
    private static final Path SPANS_CONTRACT = Path.of("../config/contract-spans.yaml");
    private static final Scenario SCENARIO = new Scenario(64, 32, 10.0, null, "cold");
    private static final long WINDOW_US = 2_000_000;
    /**
     * The allowance for publishing delay: an event is late, and refused, when the broker appends it at
     * or past its window's end plus the grace. The generator publishes as it goes (a run of chunks
     * 500 ms after its first), so this is what a loaded machine may stall its publisher by.
     */
    private static final long GRACE_US = 5_000_000;
    /**
     * How far ahead of the moment they are told the spans' earliest time is moved, on top of the
     * grace: the allowance for the SDK's export and the command's first publish (CI once took about
     * 6 s, a loaded machine and two cold JVMs, against the 3-5 s it had then). The door refuses events
     * dated more than 60 s past their log time, so it must stay well under that.
     */
    private static final long LEAD_US = 10_000_000;
    /**
     * The streams-app knows a request by its id alone, and refuses one it has finished as a duplicate
     * until its id expires: each telling of the generator's requests as spans gets ids of its own.
     */
    private static final String VLLM_ID = "vllm-";
    private static final String SEMCONV_ID = "semconv-";

    @Test
    void spansGiveTheVerdictsWindowsAndCostTheGeneratorsEventsGive(@TempDir Path dir) throws Exception {
        // spans carry no text, so they pass quality unjudged; the generator's contract here passes every
        // answer too (floor 0), so that what spans do carry can be compared whole
        Files.createDirectories(dir.resolve("config/corpus"));
        Files.copy(Path.of("../config/corpus/prompts.jsonl"), dir.resolve("config/corpus/prompts.jsonl"));
        final String shipped = Files.readString(CONTRACT);
        assertThat(shipped).contains("floor: 1.0");
        final Path genFile = dir.resolve("config/contract.yaml");
        Files.writeString(genFile, shipped.replace("floor: 1.0", "floor: 0.0"));
        final Contract gen = ContractLoader.load(genFile);
        final Contract spans = ContractLoader.load(SPANS_CONTRACT);
        final Corpus corpus = Corpus.load(ContractLoader.verifyCorpus(gen, genFile.getParent()));
        final Map<String, Contract> contracts = Map.of(gen.id(), gen, spans.id(), spans);
        // a contract of generated traffic is refused at start, with the field and the fix
        assertThat(Main.run("spans", "--contract", CONTRACT.toString(), "--listen", "127.0.0.1:0")).isEqualTo(Main.EXIT_REFUSED);
        try (EmbeddedKafka kafka = EmbeddedKafka.startTemporary();
             InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            try (Admin admin = kafka.admin()) {
                Topics.createMissing(admin, Topics.ALL, (short) 1);
            }
            // short windows, so the runs' last windows close in seconds
            final StreamsSettings settings = StreamsSettings.defaults(contracts).withWindow(Duration.ofNanos(WINDOW_US * 1_000), Duration.ofNanos(GRACE_US * 1_000))
                    .withUpstreamPartitions(Topics.TOKENS.partitions());
            final KafkaStreams streams = StreamsApp.start(settings, new AvroSerdes(client),
                    StreamsApp.streamsProperties(props, "spans-it", dir.resolve("streams")), false);
            try (SinkApp.Running sink = SinkApp.start(props, client, SinkApp.Options.of(SinkConfig.defaults(SinkConfig.peaks(contracts.values())),
                    PricesFile.load(Path.of("../config/prices.yaml")), "spans-it-sink", dir.resolve("sink")).contracts(contracts)
                    .lagGroups(List.of("spans-it", "spans-it-sink")))) {
                generate(props, client, gen, corpus);
                final List<RequestEvent> generated = read(props, client, Topics.REQUESTS.name(), RequestEvent.class).stream()
                        .filter(e -> e.getRunId().equals("gen-run")).toList();
                assertThat(generated).as("the generator's requests").hasSizeGreaterThan(10)
                        .allMatch(e -> e.getStatus() == RequestStatus.OK);

                // both shapes at once, each into a goodput spans of its own
                final List<Told> told = tellAsSpans(kafka, registry, generated);
                final Told vllm = told.get(0);
                final Told semconv = told.get(1);
                assertThat(vllm.output()).contains("ITL not measured").contains(generated.size() + " request events")
                        .contains("not published 0");
                assertThat(semconv.output()).contains(generated.size() + " request events").contains("not published 0");

                // verdicts: the same per request, from the spans' TTFT, E2E and usage
                final Map<String, RequestVerdict> byGen = verdicts(props, client, "gen-run", generated.size());
                for (String run : List.of("spans-vllm", "spans-semconv")) {
                    final Map<String, RequestVerdict> bySpan = verdicts(props, client, run, generated.size());
                    if (!bySpan.keySet().equals(byGen.keySet())) {
                        assertThat(bySpan.keySet()).as("verdicts of %s; published late (log time past window end + grace): %s;"
                                        + " DLQ by reason: %s; goodput spans said:%n%s%n%s", run, lateOnArrival(props, client, run),
                                DeadLetterCounts.since(props, Topics.DLQ.name(), Map.of()), vllm.output(), semconv.output())
                                .isEqualTo(byGen.keySet());
                    }
                    byGen.forEach((id, g) -> {
                        final RequestVerdict s = bySpan.get(id);
                        assertThat(List.of(s.getStatus(), s.getTtftUs(), s.getE2eUs(), s.getTpotUs(), s.getOutputTokens(),
                                s.getPromptTokens(), s.getSloPass(), s.getFailedObjectives(), s.getQualityPass(), s.getGood()))
                                .as("%s %s", run, id)
                                .isEqualTo(List.of(g.getStatus(), g.getTtftUs(), g.getE2eUs(), g.getTpotUs(), g.getOutputTokens(),
                                        g.getPromptTokens(), g.getSloPass(), g.getFailedObjectives(), g.getQualityPass(), g.getGood()));
                    });
                }

                // windows: vLLM's span ends when the request completed, so each lands in the generator's window
                final Map<Long, WindowStats> genWindows = windows(props, client, gen.id(), SCENARIO.id(), 0, generated.size());
                final Map<Long, WindowStats> vllmWindows = windows(props, client, spans.id(), "spans-vllm", vllm.offsetUs(), generated.size());
                // an ITL gap belongs to its later chunk's window: the generator may have a window of gaps alone
                // (a request that began streaming in it and completed in the next), which spans cannot have
                final Map<Long, WindowStats> genRequestWindows = genWindows.entrySet().stream().filter(e -> e.getValue().getRequestsTotal() > 0)
                        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
                // and a window the requests were only live in (sent there, completed in the next) holds none, but its live
                // stretch is charged: spans have those too, wherever the generator has them
                final Map<Long, WindowStats> vllmRequestWindows = vllmWindows.entrySet().stream()
                        .filter(e -> e.getValue().getRequestsTotal() > 0).collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
                assertThat(vllmRequestWindows.keySet()).as("windows by start, requests in each: generator %s, spans %s",
                        counts(genWindows), counts(vllmWindows)).isEqualTo(genRequestWindows.keySet());
                assertThat(vllmWindows.keySet()).as("windows by start: generator %s, spans %s", counts(genWindows), counts(vllmWindows))
                        .isSubsetOf(genWindows.keySet());
                genRequestWindows.forEach((start, g) -> {
                    final WindowStats s = vllmWindows.get(start);
                    assertThat(List.of(s.getRequestsTotal(), s.getRequestsOk(), s.getGoodRequests(), s.getOutputTokensOk(),
                            s.getOutputTokensGood(), s.getGoodputRps(), s.getTtft(), s.getTpot(), s.getE2e()))
                            .as("window %s", start)
                            .isEqualTo(List.of(g.getRequestsTotal(), g.getRequestsOk(), g.getGoodRequests(), g.getOutputTokensOk(),
                                    g.getOutputTokensGood(), g.getGoodputRps(), g.getTtft(), g.getTpot(), g.getE2e()));
                    assertThat(g.getItl().getCount()).as("the generator measures ITL").isPositive();
                    assertThat(s.getItl().getCount()).as("spans carry no per-chunk times").isZero();
                });
                // the semantic conventions' span ends at its last token: windows may differ, the totals do not
                final Map<Long, WindowStats> semconvWindows = windows(props, client, spans.id(), "spans-semconv", semconv.offsetUs(),
                        generated.size());
                assertThat(total(semconvWindows, WindowStats::getGoodRequests)).isEqualTo(total(genWindows, WindowStats::getGoodRequests));
                assertThat(total(semconvWindows, WindowStats::getOutputTokensOk)).isEqualTo(total(genWindows, WindowStats::getOutputTokensOk));

                // cost: the same price, hours and good tokens per window
                final Map<Long, CostRecord> genCost = cost(props, client, gen.id(), SCENARIO.id(), 0, genRequestWindows.size());
                final Map<Long, CostRecord> vllmCost = cost(props, client, spans.id(), "spans-vllm", vllm.offsetUs(), vllmWindows.size());
                assertThat(vllmCost.keySet()).isEqualTo(vllmWindows.keySet());
                vllmCost.forEach((start, v) -> {
                    final CostRecord g = genCost.get(start);
                    assertThat(g).as("the generator's cost of window %s", start).isNotNull();
                    // a window of live time and no request has no cost per successful 1M (null): compared as such
                    assertThat(java.util.Arrays.asList(v.getCostPerSuccessfulMUsd(), v.getHourlyCostUsd(), v.getGoodRequests(),
                            v.getWindowSeconds())).as("cost of window %s", start)
                            .isEqualTo(java.util.Arrays.asList(g.getCostPerSuccessfulMUsd(), g.getHourlyCostUsd(), g.getGoodRequests(),
                                    g.getWindowSeconds()));
                });
            } finally {
                streams.close();
            }

            // the report says what spans leave out
            final Path out = dir.resolve("report");
            assertThat(Main.run("report", "--bootstrap-server", kafka.bootstrapServers(), "--schema-registry", registry.url(),
                    "--contract", SPANS_CONTRACT.toString(), "--run-id", "spans-vllm", "--out", out.toString())).isZero();
            assertThat(Files.readString(out.resolve("index.html"))).contains("ITL is not measured");
            assertThat(Files.readString(out.resolve("assumptions.json"))).contains("Observed server-side from OpenTelemetry spans");
            assertThat(Files.readString(out.resolve("manifest.json"))).contains("peers/guidellm/benchmarks.json")
                    .contains("traffic observed, not scheduled");
            assertThat(Files.readString(out.resolve("scenarios.csv"))).contains("spans-vllm");
            assertThat(out.resolve("peers/vllm/spans-vllm.json")).exists();
        }
    }

    /**
     * The generator against the simulator, no warm-up (spans have none). Its ticks after the run do not
     * outlast the grace: the span commands' ticks, later and longer, close its last windows.
     */
    private static void generate(Properties props, SchemaRegistryClient client, Contract contract, Corpus corpus) throws Exception {
        try (SimServer server = new SimServer(SimConfig.defaults(), corpus, 0);
             Generator g = new Generator(new StreamingClient(64), new KafkaEventSink(props, client, Topics.TOKENS.name(),
                     Topics.REQUESTS.name(), Topics.RUNS.name(), 100_000, "gen-run").closeWindowsAfter(Duration.ofSeconds(4)),
                     new PrintStream(OutputStream.nullOutputStream()))) {
            final Target t = new Target(server.baseUrl(), true, contract.modelName(), null, Map.of(), "sim", Duration.ofSeconds(60),
                    Duration.ofSeconds(30), false);
            g.run(new LoadRun.Settings(t, RunIdentity.of(contract, "gen-run", "sim"), SCENARIO, corpus,
                    "g", "poisson", null, 0, 4.0, null, 0, null, 1_000, 5, Duration.ofSeconds(60)));
        }
    }

    /** What a span run gave: the command's output, and how far its times were moved. */
    private record Told(String output, long offsetUs) {
    }

    /**
     * Each generated request told as one span through the OpenTelemetry SDK into {@code goodput spans},
     * vLLM-shaped into run "spans-vllm" and semconv-shaped into run "spans-semconv", one command each.
     * The spans are told now, as an engine would tell them, so their times are moved forward by whole
     * windows ({@code offsetUs}: each request keeps its window, some further on) to at least
     * {@link #LEAD_US} after the moment they are told. Each command ticks on after it stops until its
     * last window has passed its grace, a length taken from the requests' own span, and its output is
     * returned once it has exited.
     */
    private static List<Told> tellAsSpans(EmbeddedKafka kafka, InProcessSchemaRegistry registry, List<RequestEvent> requests)
            throws Exception {
        final long first = requests.stream().mapToLong(e -> Micros.of(e.getIntendedSendTimeUs())).min().orElseThrow();
        final long last = requests.stream().mapToLong(e -> Micros.of(e.getCompletionTimeUs())).max().orElseThrow();
        // the last window ends less than the lead, 2 windows and the requests' span after the moment the offset
        // is taken; the commands tick on until that and the grace have passed, with 2 s to spare
        final long closeAfterS = (last - first + LEAD_US + 2 * WINDOW_US + GRACE_US) / 1_000_000 + 1 + 2;
        try (ChildCli vllmCli = startSpans(kafka, registry, "spans-vllm", closeAfterS);
             ChildCli semconvCli = startSpans(kafka, registry, "spans-semconv", closeAfterS)) {
            final long vllmOffset = send(vllmCli, requests, true);
            final long semconvOffset = send(semconvCli, requests, false);
            for (ChildCli cli : List.of(vllmCli, semconvCli)) {
                cli.awaitContaining("spans " + requests.size() + ": " + requests.size() + " request events");
            }
            vllmCli.interrupt();
            semconvCli.interrupt();
            return List.of(new Told(vllmCli.awaitEnd(), vllmOffset), new Told(semconvCli.awaitEnd(), semconvOffset));
        }
    }

    private static ChildCli startSpans(EmbeddedKafka kafka, InProcessSchemaRegistry registry, String run, long closeAfterS)
            throws Exception {
        return ChildCli.start("spans", "--bootstrap-server", kafka.bootstrapServers(), "--schema-registry", registry.url(),
                "--contract", SPANS_CONTRACT.toString(), "--listen", "127.0.0.1:0", "--run-id", run, "--scenario", run,
                "--close-windows-after", Long.toString(closeAfterS), "--progress-interval", "1");
    }

    /** Tells the requests as spans to a started command; returns how far their times were moved. */
    private static long send(ChildCli cli, List<RequestEvent> requests, boolean vllm) throws Exception {
        final Matcher m = Pattern.compile("traces at (http://\\S+/v1/traces)").matcher(cli.awaitLine("spans: OTLP/HTTP traces at"));
        assertThat(m.find()).isTrue();
        final SdkTracerProvider provider = SdkTracerProvider.builder()
                .setResource(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "sim")))
                .addSpanProcessor(BatchSpanProcessor.builder(OtlpHttpSpanExporter.builder().setEndpoint(m.group(1)).build())
                        .setScheduleDelay(Duration.ofMillis(100)).build()).build();
        final Tracer tracer = provider.get("goodput-span-ingest-it");
        // whole windows, so that each request keeps its place in its window; the earliest at least the lead ahead
        final long first = requests.stream().mapToLong(e -> Micros.of(e.getIntendedSendTimeUs())).min().orElseThrow();
        final long nowUs = System.currentTimeMillis() * 1_000;
        final long offsetUs = -Math.floorDiv(first - nowUs - LEAD_US, WINDOW_US) * WINDOW_US;
        final List<RequestEvent> byCompletion = requests.stream()
                .sorted(java.util.Comparator.comparing(RequestEvent::getCompletionTimeUs)).toList();
        for (RequestEvent e : byCompletion) {
            // never told more than 30 s ahead of now, however long the generator's run took: the door refuses
            // events dated over 60 s after their log time (a fast sender's clock)
            while (Micros.of(e.getCompletionTimeUs()) + offsetUs - System.currentTimeMillis() * 1_000 > 30_000_000L) {
                Thread.sleep(100);
            }
            final long start = Micros.of(e.getIntendedSendTimeUs());
            final double ttft = (Micros.of(e.getFirstChunkTimeUs()) - start) / 1e6;
            // the engine's e2e ends where the generator's does: at the end of generation (the stream's finish)
            final double e2e = (dev.goodput.records.Generation.endUs(e) - start) / 1e6;
            final long startNs = (start + offsetUs) * 1_000;
            if (vllm) {
                // vLLM's llm_request span: started at the request's arrival, ended when it finished
                tracer.spanBuilder("llm_request").setStartTimestamp(startNs, TimeUnit.NANOSECONDS)
                        .setAttribute("gen_ai.request.id", VLLM_ID + e.getRequestId())
                        .setAttribute("gen_ai.usage.prompt_tokens", (long) e.getPromptTokens())
                        .setAttribute("gen_ai.usage.completion_tokens", (long) e.getOutputTokens())
                        .setAttribute("gen_ai.latency.time_to_first_token", ttft).setAttribute("gen_ai.latency.e2e", e2e)
                        .startSpan().end((Micros.of(e.getCompletionTimeUs()) + offsetUs) * 1_000, TimeUnit.NANOSECONDS);
            } else {
                // the semantic conventions' inference span: its duration is the end-to-end time
                tracer.spanBuilder("chat m").setStartTimestamp(startNs, TimeUnit.NANOSECONDS)
                        .setAttribute("gen_ai.operation.name", "chat").setAttribute("gen_ai.response.id", SEMCONV_ID + e.getRequestId())
                        .setAttribute("gen_ai.usage.input_tokens", (long) e.getPromptTokens())
                        .setAttribute("gen_ai.usage.output_tokens", (long) e.getOutputTokens())
                        .setAttribute("gen_ai.response.time_to_first_chunk", ttft)
                        .startSpan().end((dev.goodput.records.Generation.endUs(e) + offsetUs) * 1_000, TimeUnit.NANOSECONDS);
            }
        }
        assertThat(provider.forceFlush().join(60, TimeUnit.SECONDS).isSuccess()).as("the exporter's sends answered").isTrue();
        provider.close();
        return offsetUs;
    }

    private static <V extends org.apache.avro.specific.SpecificRecord> List<V> read(Properties props, SchemaRegistryClient client,
                                                                                  String topic, Class<V> type) {
        return TopicSnapshot.read(props, topic, new AvroDeserializer<>(client, type));
    }

    /** A run's request events that reached the broker at or past their window's end plus the grace, with by how much. */
    private static List<String> lateOnArrival(Properties props, SchemaRegistryClient client, String run) {
        final List<String> late = new java.util.ArrayList<>();
        TopicSnapshot.forEachStamped(props, Topics.REQUESTS.name(), new AvroDeserializer<>(client, RequestEvent.class), (e, partition, logMs) -> {
            final long completionUs = Micros.of(e.getCompletionTimeUs());
            if (e.getRunId().equals(run) && LogClock.late(completionUs, logMs * 1_000, WINDOW_US, GRACE_US)) {
                late.add(e.getRequestId() + " +" + (logMs * 1_000 - LogClock.windowEnd(completionUs, WINDOW_US) - GRACE_US) / 1_000 + " ms");
            }
        }, null);
        return late;
    }

    /** A run's verdicts by request id, read until all {@code n} are there. */
    private static Map<String, RequestVerdict> verdicts(Properties props, SchemaRegistryClient client, String run, int n)
            throws InterruptedException {
        return awaitAll(() -> read(props, client, Topics.VERDICTS.name(), RequestVerdict.class).stream()
                .filter(v -> v.getRunId().equals(run))
                .collect(Collectors.toMap(v -> v.getRequestId().replaceFirst("^(" + VLLM_ID + "|" + SEMCONV_ID + ")", ""), v -> v,
                        (a, b) -> b)), n);
    }

    /**
     * Final window records of a contract and scenario by window start, moved back by {@code offsetUs},
     * read until they hold {@code requests} requests.
     */
    private static Map<Long, WindowStats> windows(Properties props, SchemaRegistryClient client, String contract, String scenario,
                                                  long offsetUs, int requests) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        Map<Long, WindowStats> m;
        do {
            m = read(props, client, Topics.WINDOW_STATS.name(), WindowStats.class).stream()
                    .filter(w -> w.getIsFinal() && w.getContractId().equals(contract) && w.getScenarioId().equals(scenario))
                    .collect(Collectors.toMap(w -> Micros.of(w.getWindowStartUs()) - offsetUs, w -> w, (a, b) -> b));
        } while (total(m, WindowStats::getRequestsTotal) < requests && System.nanoTime() < deadline && pause());
        return m;
    }

    /** Per-window cost records of a contract and scenario by window start moved back by {@code offsetUs}, read until all {@code n} are there. */
    private static Map<Long, CostRecord> cost(Properties props, SchemaRegistryClient client, String contract, String scenario,
                                              long offsetUs, int n) throws InterruptedException {
        return awaitAll(() -> read(props, client, Topics.COST.name(), CostRecord.class).stream()
                .filter(c -> c.getSpan().equals("window") && c.getContractId().equals(contract) && c.getScenarioId().equals(scenario))
                .collect(Collectors.toMap(c -> Micros.of(c.getWindowStartUs()) - offsetUs, c -> c, (a, b) -> b)), n);
    }

    private static boolean pause() throws InterruptedException {
        Thread.sleep(500);
        return true;
    }

    private static Map<Long, Long> counts(Map<Long, WindowStats> windows) {
        return windows.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().getRequestsTotal()));
    }

    private static long total(Map<Long, WindowStats> windows, Function<WindowStats, Number> field) {
        return windows.values().stream().mapToLong(w -> field.apply(w).longValue()).sum();
    }

    private interface Snapshot<K, V> {
        Map<K, V> get();
    }

    /** Reads until {@code n} entries are there; the bound only keeps a broken build from hanging. */
    private static <K, V> Map<K, V> awaitAll(Snapshot<K, V> snapshot, int n) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        Map<K, V> m = snapshot.get();
        while (m.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(500);
            m = snapshot.get();
        }
        return m;
    }
}

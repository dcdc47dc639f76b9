package dev.goodput.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.TokenEvent;
import dev.goodput.capture.EventSink;
import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.capture.TimingPriority;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.Corpus;
import dev.goodput.generator.load.LoadRun;
import dev.goodput.generator.load.Scenario;
import dev.goodput.kafka.EmbeddedKafkaMain;
import dev.goodput.loop.MicroClock;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.topics.Topics;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Measures the load generator itself, with the simulator and the Kafka broker in child JVMs so
 * that the CPU this process uses is the generator's (HTTP, SSE and JSON parsing, timing, Avro
 * serialization and publishing to a real broker):
 * <ol>
 *   <li>timing error: measured TTFT minus the simulator's true TTFT, per request, at 100 and 1,000
 *       concurrent streams (the simulator records when it handed each first chunk to its socket);</li>
 *   <li>dispatch lateness p99 under Poisson arrivals at 500 and 2,000 requests/s;</li>
 *   <li>content chunks received, timed and published per second per core of generator CPU.</li>
 * </ol>
 * Run with {@code ./goodput bench-producer}. Prints its figures; asserts nothing.
 */
public final class ProducerBenchmark {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final PrintStream out;
    /** Where the runs' figures are appended as rows (set by the command; none by default). */
    BenchData data = BenchData.of("none", "bench-producer");
    private final Path corpusFile;
    private final double seconds;
    private final String phases;
    private final TimingPriority priority;

    /** @param phases all, or a comma list of streams, lateness, throughput */
    public ProducerBenchmark(PrintStream out, Path corpusFile, double seconds, String phases, TimingPriority priority) {
        this.out = out;
        this.priority = priority;
        this.corpusFile = corpusFile;
        this.seconds = seconds;
        this.phases = phases;
    }

    private boolean wants(String phase) {
        return "all".equals(phases) || List.of(phases.split(",")).contains(phase);
    }

    /** Runs every phase and prints one result line per figure. */
    public void run() throws Exception {
        final Corpus corpus = Corpus.load(corpusFile);
        try (ChildJvm broker = ChildJvm.start(childFlags(), EmbeddedKafkaMain.class.getName(), "bootstrap=");
             InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.value());
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.value()))) {
                Topics.createMissing(admin, Topics.ALL, (short) 1);
            }
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            out.printf(Locale.ROOT, "broker %s (child JVM), registry %s, %d cores, %.0f s per phase, timing threads %s%n",
                    broker.value(), registry.url(), Runtime.getRuntime().availableProcessors(), seconds, timingThreads());

            // Decode step 20 ms, no per-sequence cost: 1,000 streams give 50,000 chunks/s.
            if (wants("streams")) try (ChildJvm sim = ChildJvm.start(childFlags(), "dev.goodput.simulator.SimMain", "port=", corpusFile.toString(), "4096", "20000", "0")) {
                final String url = "http://127.0.0.1:" + sim.value() + "/v1";
                phase("warm-up (discarded)", url, props, client, corpus, new Scenario(32, 64, null, 100, "cold"), 5, sim);
                for (int streams : new int[] {100, 1000}) {
                    phase("streams " + streams, url, props, client, corpus, new Scenario(32, 64, null, streams, "cold"),
                            seconds, sim);
                }
            }
            // Short responses so that thousands of requests per second stay a few hundred in flight.
            if (wants("lateness")) try (ChildJvm sim = ChildJvm.start(childFlags(), "dev.goodput.simulator.SimMain", "port=", corpusFile.toString(), "4096", "5000", "0")) {
                final String url = "http://127.0.0.1:" + sim.value() + "/v1";
                phase("warm-up (discarded)", url, props, client, corpus, new Scenario(32, 16, 500.0, null, "cold"), 5, sim);
                for (double rate : new double[] {500, 2000}) {
                    phase("poisson " + (int) rate + " req/s", url, props, client, corpus,
                            new Scenario(32, 16, rate, null, "cold"), seconds, sim);
                }
            }
            // Many fast streams: 1,000 streams x 2 ms steps offer 500,000 chunks/s; the figure is per generator core.
            if (wants("throughput")) try (ChildJvm sim = ChildJvm.start(childFlags(), "dev.goodput.simulator.SimMain", "port=", corpusFile.toString(), "4096", "2000", "0")) {
                final String url = "http://127.0.0.1:" + sim.value() + "/v1";
                phase("throughput, 1000 fast streams", url, props, client, corpus,
                        new Scenario(32, 256, null, 1000, "cold"), seconds, sim);
            }
        }
    }

    private String timingThreads() {
        try (StreamingClient probe = new StreamingClient(1, priority)) {
            return probe.nio().selectorPriority();
        }
    }

    private void phase(String name, String url, Properties props, SchemaRegistryClient registry, Corpus corpus,
                       Scenario scenario, double durationS, ChildJvm sim) throws Exception {
        final Target target = new Target(url, true, "sim", null, Map.of(), "sim", Duration.ofSeconds(60),
                Duration.ofSeconds(30), false);
        final RunIdentity id = new RunIdentity("0".repeat(64), "bench", "sim", "sim", 1,
                new Contract.Decoding(0, 1, null, null, false), "contains", 1.0);
        final Map<String, RequestEvent> requests = new ConcurrentHashMap<>();
        fetchTraces(sim);
        final RunSummary summary;
        final long chunks;
        final Histogram ttft;
        try (StreamingClient http = new StreamingClient(4096, priority);
             KafkaEventSink kafka = new KafkaEventSink(props, registry, Topics.TOKENS.name(), Topics.REQUESTS.name(),
                     Topics.RUNS.name(), 4_000_000).closeWindowsAfter(Duration.ZERO)) {
            final EventSink tee = new EventSink() {
                @Override
                public void token(TokenEvent event) {
                    kafka.token(event);
                }

                @Override
                public void request(RequestEvent event) {
                    kafka.request(event);
                    requests.put(event.getRequestId(), event);
                }
            };
            final LoadRun run = new LoadRun(new LoadRun.Settings(target, id, scenario, corpus, "bench", "poisson", null,
                    0, durationS, null, 0, null, 1_000, 1, Duration.ofSeconds(3600)), MicroClock.system());
            summary = run.run(http, tee, new PrintStream(OutputStream.nullOutputStream()), kafka::failure,
                    kafka::tokensOffered);
            ttft = run.ttft();
            final boolean flushed = kafka.flush(Duration.ofMinutes(2));
            chunks = kafka.tokensOffered();
            if (!flushed || kafka.failure() != null) {
                out.println(name + ": publishing failed: " + kafka.failure());
            }
        }
        final Map<String, JsonNode> truth = fetchTraces(sim);
        final Histogram ttftError = new Histogram(3_600_000_000L, 3);
        long negative = 0;
        for (RequestEvent e : requests.values()) {
            final JsonNode t = truth.get(e.getRequestId());
            if (e.getStatus() != RequestStatus.OK || t == null || e.getFirstChunkTimeUs() == null) {
                continue;
            }
            final long err = us(e.getFirstChunkTimeUs()) - t.get("firstContentUs").asLong();
            if (err < 0) {
                negative++;
            }
            ttftError.recordValue(Math.max(0, err));
        }
        final double cores = summary.getGeneratorCpuS() / summary.getWallS();
        // the TTFT as measured too: it shows what the generator's threads cost a target that shares the machine
        out.printf(Locale.ROOT, "%-32s requests %7d ok %7d | TTFT p50 %7.3f ms p99 %7.3f ms | TTFT error p50 %7.3f ms p99 %7.3f ms max %8.3f ms"
                        + " (n=%d, %d negative) | lateness p50 %7.3f ms p99 %7.3f ms max %8.3f ms | %9.0f chunks/s,"
                        + " generator CPU %.2f cores, %9.0f chunks/s per core%n",
                name, summary.getRequests(), summary.getRequestsOk(), ttft.getValueAtPercentile(50) / 1e3,
                ttft.getValueAtPercentile(99) / 1e3, ttftError.getValueAtPercentile(50) / 1e3,
                ttftError.getValueAtPercentile(99) / 1e3, ttftError.getMaxValue() / 1e3, ttftError.getTotalCount(),
                negative, summary.getLatenessP50Us() / 1e3, summary.getLatenessP99Us() / 1e3,
                summary.getLatenessMaxUs() / 1e3, chunks / summary.getWallS(), cores,
                chunks / Math.max(1e-9, summary.getGeneratorCpuS()));
        data.append(BenchData.PRODUCER, List.of(name, summary.getRequests(),
                summary.getRequestsOk(), ttftError.getValueAtPercentile(50) / 1e3, ttftError.getValueAtPercentile(99) / 1e3,
                ttftError.getMaxValue() / 1e3, summary.getLatenessP99Us() / 1e3, chunks / summary.getWallS(), cores,
                chunks / Math.max(1e-9, summary.getGeneratorCpuS())));
    }

    private static long us(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    private static Map<String, JsonNode> fetchTraces(ChildJvm sim) throws IOException, InterruptedException {
        final HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + sim.value() + "/sim/trace")).build(), HttpResponse.BodyHandlers.ofString());
        final Map<String, JsonNode> out = new ConcurrentHashMap<>();
        for (String line : r.body().split("\n")) {
            if (!line.isBlank()) {
                final JsonNode n = JSON.readTree(line);
                out.put(n.get("requestId").asText(), n);
            }
        }
        return out;
    }

    /** Child JVMs run with this JVM's collector and tuning flags, so both sides are measured alike. */
    static List<String> childFlags() {
        final List<String> flags = new ArrayList<>(List.of("-Xmx1g"));
        flags.addAll(ChildJvm.inheritedFlags());
        return flags;
    }
}

package dev.goodput.runner;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import dev.goodput.avro.WindowStats;
import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.config.Durations;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.contract.load.Corpus;
import dev.goodput.generator.Generator;
import dev.goodput.generator.load.LoadRun;
import dev.goodput.generator.load.Scenario;
import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import dev.goodput.streams.StreamsApp;
import dev.goodput.streams.StreamsSettings;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;

/**
 * A live run for the replay tests: every topic on the broker, an in-process registry, the
 * streams-app running live (application id "live"), and a generator driving the simulator.
 */
final class LiveRun implements AutoCloseable {
    static final Path CONTRACT_FILE = Path.of("../config/contract.yaml");

    final EmbeddedKafka kafka;
    final Contract contract;
    final Corpus corpus;
    final InProcessSchemaRegistry registry;
    final SchemaRegistryClient client;
    final Properties props = new Properties();
    final KafkaStreams streams;
    /** How long the generator ticks after its last event: the live streams-app's window and grace. */
    private final Duration closeAfter;

    LiveRun(EmbeddedKafka kafka, Path dir) throws Exception {
        this(kafka, dir, Durations.parse(StreamsSettings.DEFAULT_WINDOW, "window"),
                Durations.parse(StreamsSettings.DEFAULT_GRACE, "grace"));
    }

    /** The same with the live streams-app's windows and grace, which a replay reads back from its window records. */
    LiveRun(EmbeddedKafka kafka, Path dir, Duration window, Duration grace) throws Exception {
        this.kafka = kafka;
        this.contract = ContractLoader.load(CONTRACT_FILE);
        this.corpus = Corpus.load(ContractLoader.verifyCorpus(contract, CONTRACT_FILE.getParent()));
        this.registry = InProcessSchemaRegistry.inMemory(0);
        this.client = new SchemaRegistryClient(registry.url());
        try (Admin admin = kafka.admin()) {
            Topics.createMissing(admin, Topics.ALL, (short) 1);
        }
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        final StreamsSettings config = StreamsSettings.defaults(Map.of(contract.id(), contract))
                .withUpstreamPartitions(Topics.TOKENS.partitions()).withWindow(window, grace);
        this.closeAfter = window.plus(grace);
        this.streams = StreamsApp.start(config, new AvroSerdes(client),
                StreamsApp.streamsProperties(props, "live", dir.resolve("live-state")), false);
    }

    /**
     * One scenario against the simulator, for {@code seconds}; returns once the generator has
     * stopped, ticked for a window and its grace, and marked the end of the run.
     */
    void generate(SimConfig sim, Duration timeout, Duration stall, Scenario scenario, String runId, double seconds)
            throws Exception {
        try (SimServer server = new SimServer(sim, corpus, 0);
             Generator g = new Generator(new StreamingClient(256), new KafkaEventSink(props, client, Topics.TOKENS.name(),
                     Topics.REQUESTS.name(), Topics.RUNS.name(), 100_000, runId).closeWindowsAfter(closeAfter),
                     new PrintStream(OutputStream.nullOutputStream()))) {
            final Target t = new Target(server.baseUrl(), true, contract.modelName(), null, Map.of(), "sim", timeout, stall, false);
            g.run(new LoadRun.Settings(t, RunIdentity.of(contract, runId, "sim"), scenario, corpus, "g", "poisson", null, 0,
                    seconds, null, 0, null, 1_000, 5, Duration.ofSeconds(60)));
        }
    }

    /** goodput replay of this run on this broker and registry, with more flags; its exit code. */
    int replay(String replayId, String runId, String... more) {
        final String[] base = {"replay", "--replay-id", replayId, "--bootstrap-server", kafka.bootstrapServers(),
            "--schema-registry", registry.url(), "--contract", CONTRACT_FILE.toString(), "--run-id", runId,
            "--idle-seconds", "4"};
        final String[] args = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, args, base.length, more.length);
        return Main.run(args);
    }

    /**
     * The final window records of a topic by key, once there are at least {@code windows} of them
     * holding at least {@code requests} requests, or as they are after {@code limit}.
     */
    Map<String, byte[]> awaitFinals(String topic, int windows, long requests, Duration limit) throws InterruptedException {
        final AvroDeserializer<WindowStats> d = new AvroDeserializer<>(client, WindowStats.class);
        final long deadline = System.nanoTime() + limit.toNanos();
        Map<String, byte[]> out = new TreeMap<>();
        while (System.nanoTime() < deadline) {
            out = new TreeMap<>();
            long n = 0;
            for (ConsumerRecord<String, byte[]> r : ResultTopics.readRaw(kafka.bootstrapServers(), topic)) {
                final WindowStats w = d.deserialize(topic, r.value());
                if (w.getIsFinal()) {
                    out.put(r.key(), r.value());
                    n += w.getRequestsTotal();
                }
            }
            if (out.size() >= windows && n >= requests) {
                return out;
            }
            Thread.sleep(500);
        }
        return out;
    }

    @Override
    public void close() {
        streams.close(Duration.ofSeconds(30));
        registry.close();
    }
}

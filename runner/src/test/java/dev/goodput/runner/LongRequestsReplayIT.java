package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.producer.Corpus;
import dev.goodput.producer.Generator;
import dev.goodput.producer.client.RunIdentity;
import dev.goodput.producer.client.StreamingClient;
import dev.goodput.producer.client.Target;
import dev.goodput.producer.load.LoadRun;
import dev.goodput.producer.load.Scenario;
import dev.goodput.producer.publish.KafkaEventSink;
import dev.goodput.producer.sim.SimConfig;
import dev.goodput.producer.sim.SimServer;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.streams.StreamsApp;
import dev.goodput.streams.StreamsSettings;
import dev.goodput.topics.Control;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests of about 30 s (three windows each) on a real broker: the live run's final window records
 * and two replays of its topics are byte-identical, no gap is late, and every ITL gap of every OK
 * request is in a final window. Before the event-time core took its decisions from the log alone,
 * the live run judged lateness against a watermark moved by a 200 ms wall-clock heartbeat, and 10
 * of 11 final windows of such a run differed from its replays.
 */
class LongRequestsReplayIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    private static final Path CONTRACT_FILE = Path.of("../config/contract.yaml");
    private static final String RUN = "long-run";

    @Test
    void thirtySecondRequestsLiveAndTwoReplaysGiveByteIdenticalFinalWindows(@TempDir Path dir) throws Exception {
        final Contract contract = ContractLoader.load(CONTRACT_FILE);
        final Corpus corpus = Corpus.load(ContractLoader.verifyCorpus(contract, CONTRACT_FILE.getParent()));
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            try (Admin admin = KAFKA.kafka().admin()) {
                Topics.createMissing(admin, Topics.ALL, (short) 1);
            }
            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());
            final StreamsSettings config = StreamsSettings.defaults(Map.of(contract.id(), contract))
                    .withUpstreamPartitions(Topics.TOKENS.partitions());
            final KafkaStreams live = StreamsApp.start(config, new AvroSerdes(client),
                    StreamsApp.streamsProperties(props, "live", dir.resolve("live-state")), false);
            // 150 ms per decode step, 200 output tokens: each request streams for about 30 s
            try (SimServer sim = new SimServer(SimConfig.defaults().withStep(150_000, 0), corpus, 0);
                 Generator g = new Generator(new StreamingClient(256), new KafkaEventSink(props, client, Topics.TOKENS.name(),
                         Topics.REQUESTS.name(), Topics.RUNS.name(), 100_000, RUN),
                         new PrintStream(OutputStream.nullOutputStream()))) {
                final Target t = new Target(sim.baseUrl(), true, contract.modelName(), null, Map.of(), "sim",
                        Duration.ofSeconds(120), Duration.ofSeconds(30), false);
                g.run(new LoadRun.Settings(t, RunIdentity.of(contract, RUN, "sim"), new Scenario(64, 200, 1.5, null, "cold"),
                        corpus, "g", "poisson", null, 0, 12.0, null, 0, null, 1_000, 5, Duration.ofSeconds(60)));
            }
            // the generator ticked for a window and its grace, then marked the end of the run: every window closes
            final List<RequestEvent> requests = requests(client);
            final long ok = requests.stream().filter(r -> r.getStatus() == RequestStatus.OK).count();
            assertThat(ok).as("OK requests").isGreaterThanOrEqualTo(5);
            assertThat(requests.stream().filter(r -> r.getStatus() == RequestStatus.OK).mapToLong(r ->
                    r.getLastChunkTimeUs().toEpochMilli() - r.getFirstChunkTimeUs().toEpochMilli()).min().orElseThrow())
                    .as("shortest stream, ms").isGreaterThan(25_000);
            final long gaps = requests.stream().filter(r -> r.getStatus() == RequestStatus.OK)
                    .mapToLong(r -> r.getContentChunks() - 1).sum();
            final Map<String, byte[]> liveFinals = awaitFinals(client, Topics.WINDOW_STATS.name(), requests.size());
            live.close(Duration.ofSeconds(30));
            final Map<String, WindowStats> decoded = decode(client, liveFinals);
            assertThat(decoded.values().stream().mapToLong(WindowStats::getRequestsTotal).sum())
                    .as("requests in final windows").isEqualTo(requests.size());
            assertThat(decoded.values().stream().mapToLong(w -> w.getItl().getCount()).sum())
                    .as("ITL gaps in final windows").isEqualTo(gaps);
            assertThat(decoded.values().stream().mapToLong(WindowStats::getLateEvents).sum()).as("late events").isZero();

            for (String replay : List.of("first", "second")) {
                assertThat(Main.run("replay", "--replay-id", replay, "--bootstrap-server", KAFKA.kafka().bootstrapServers(),
                        "--schema-registry", registry.url(), "--contract", CONTRACT_FILE.toString(), "--run-id", RUN,
                        "--prices", "../config/prices.yaml", "--idle-seconds", "4")).isZero();
                final Map<String, byte[]> finals = awaitFinals(client, Topics.WINDOW_STATS.name() + "." + replay, requests.size());
                assertThat(finals.keySet()).as("windows of the %s replay", replay).isEqualTo(liveFinals.keySet());
                for (String k : liveFinals.keySet()) {
                    assertThat(HexFormat.of().formatHex(finals.get(k))).as("%s replay, window %s", replay, k)
                            .isEqualTo(HexFormat.of().formatHex(liveFinals.get(k)));
                }
            }
        }
    }

    private static List<RequestEvent> requests(SchemaRegistryClient client) {
        final AvroDeserializer<RequestEvent> d = new AvroDeserializer<>(client, RequestEvent.class);
        final List<RequestEvent> out = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> r : readRaw(Topics.REQUESTS.name())) {
            if (!Control.is(r.headers())) {
                final RequestEvent e = d.deserialize(Topics.REQUESTS.name(), r.value());
                if (!e.getWarmup()) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    private static Map<String, WindowStats> decode(SchemaRegistryClient client, Map<String, byte[]> raw) {
        return ResultTopics.decode(client, raw);
    }

    /** The final window records of a topic, once they hold {@code requests} requests (or 120 s have passed). */
    private static Map<String, byte[]> awaitFinals(SchemaRegistryClient client, String topic, long requests) throws Exception {
        final AvroDeserializer<WindowStats> d = new AvroDeserializer<>(client, WindowStats.class);
        final long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        Map<String, byte[]> out = new TreeMap<>();
        while (System.nanoTime() < deadline) {
            out = new TreeMap<>();
            long n = 0;
            for (ConsumerRecord<String, byte[]> r : readRaw(topic)) {
                final WindowStats w = d.deserialize(topic, r.value());
                if (w.getIsFinal()) {
                    out.put(r.key(), r.value());
                    n += w.getRequestsTotal();
                }
            }
            if (n >= requests) {
                return out;
            }
            Thread.sleep(500);
        }
        return out;
    }

    private static List<ConsumerRecord<String, byte[]>> readRaw(String topic) {
        return ResultTopics.readRaw(KAFKA.kafka().bootstrapServers(), topic);
    }
}

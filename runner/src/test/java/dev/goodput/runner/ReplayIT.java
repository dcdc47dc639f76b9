package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
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
import dev.goodput.sink.PricesFile;
import dev.goodput.sink.SinkCommand;
import dev.goodput.sink.SinkConfig;
import dev.goodput.streams.StreamsApp;
import dev.goodput.streams.StreamsSettings;
import dev.goodput.topics.Topics;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live run (generator, simulator and a streams-app processing as events arrive), then
 * {@code goodput replay} of its retained topics: the final window records are byte-identical; and a
 * what-if replay with a tighter TTFT objective lowers goodput by exactly the count computed by hand
 * from the live verdicts.
 */
class ReplayIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.dedicated();

    private static final Path CONTRACT_FILE = Path.of("../config/contract.yaml");

    @Test
    void aReplayEqualsTheLiveRunAndAWhatIfCountsExactly(@TempDir Path dir) throws Exception {
        final Contract contract = ContractLoader.load(CONTRACT_FILE);
        final Corpus corpus = Corpus.load(ContractLoader.verifyCorpus(contract, CONTRACT_FILE.getParent()));
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            try (Admin admin = KAFKA.kafka().admin()) {
                Topics.createMissing(admin, Topics.ALL, (short) 1);
            }
            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.kafka().bootstrapServers());

            // the live run: the streams-app processes events as the generator publishes them
            final StreamsSettings config = StreamsSettings.defaults(Map.of(contract.id(), contract))
                    .withUpstreamPartitions(Topics.TOKENS.partitions());
            final KafkaStreams live = StreamsApp.start(config, new AvroSerdes(client),
                    StreamsApp.streamsProperties(props, "live", dir.resolve("live-state")), false);
            // and the sink prices the live windows
            final SinkCommand.Running liveSink = SinkCommand.start(props, client,
                    SinkConfig.defaults(SinkConfig.peaks(List.of(contract))),
                    PricesFile.load(Path.of("../config/prices.yaml")), "live-sink", dir.resolve("live-sink"),
                    "127.0.0.1", 0);
            try (SimServer sim = new SimServer(SimConfig.defaults().withStep(4_000, 20), corpus, 0);
                 Generator g = new Generator(new StreamingClient(256), new KafkaEventSink(props, client, Topics.TOKENS.name(),
                         Topics.REQUESTS.name(), Topics.RUNS.name(), 100_000),
                         new PrintStream(OutputStream.nullOutputStream()))) {
                final Target t = new Target(sim.baseUrl(), true, contract.modelName(), null, Map.of(), "sim",
                        Duration.ofSeconds(30), Duration.ofSeconds(10), false);
                g.run(new LoadRun.Settings(t, RunIdentity.of(contract, "live-run", "sim"), new Scenario(64, 16, 40.0, null, "cold"),
                        corpus, "g", "poisson", null, 0, 32.0, null, 0, null, 1_000, 5, Duration.ofSeconds(60)));
            }
            final Map<String, byte[]> liveFinals = awaitFinals(client, Topics.WINDOW_STATS.name(), 2);
            live.close(Duration.ofSeconds(30));
            assertThat(liveFinals).hasSizeGreaterThanOrEqualTo(2);
            final Map<String, byte[]> liveCosts = awaitRecords(Topics.COST.name(), liveFinals.size());
            liveSink.close();
            final Map<String, byte[]> liveVerdicts = awaitRecords(Topics.VERDICTS.name(), 1);

            // replay with the same parameters: byte-identical final records
            assertThat(Main.run("replay", "--replay-id", "same", "--bootstrap-server", KAFKA.kafka().bootstrapServers(),
                    "--schema-registry", registry.url(), "--contract", CONTRACT_FILE.toString(), "--run-id", "live-run",
                    "--prices", "../config/prices.yaml", "--idle-seconds", "4")).isZero();
            // every verdict and every cost record of the live run, byte for byte
            final Map<String, byte[]> replayVerdicts = awaitRecords(Topics.VERDICTS.name() + ".same", liveVerdicts.size());
            assertThat(replayVerdicts.keySet()).isEqualTo(liveVerdicts.keySet());
            liveVerdicts.forEach((k, v) -> assertThat(HexFormat.of().formatHex(replayVerdicts.get(k))).as("verdict " + k)
                    .isEqualTo(HexFormat.of().formatHex(v)));
            final Map<String, byte[]> replayCosts = awaitRecords(Topics.COST.name() + ".same", liveCosts.size());
            assertThat(liveCosts).isNotEmpty();
            assertThat(replayCosts.keySet()).containsAll(liveCosts.keySet());
            liveCosts.forEach((k, v) -> assertThat(HexFormat.of().formatHex(replayCosts.get(k))).as("cost " + k)
                    .isEqualTo(HexFormat.of().formatHex(v)));
            final Map<String, byte[]> replayFinals = awaitFinals(client, Topics.WINDOW_STATS.name() + ".same", liveFinals.size());
            assertThat(replayFinals.keySet()).containsAll(liveFinals.keySet());
            for (String k : liveFinals.keySet()) {
                assertThat(HexFormat.of().formatHex(replayFinals.get(k))).as(k)
                        .isEqualTo(HexFormat.of().formatHex(liveFinals.get(k)));
            }

            // what-if: TTFT objective at the live run's median TTFT, no other objective
            final List<RequestVerdict> verdicts = read(client, Topics.VERDICTS.name(), RequestVerdict.class);
            final List<Long> ttfts = new ArrayList<>(verdicts.stream().filter(v -> v.getTtftUs() != null)
                    .map(RequestVerdict::getTtftUs).sorted().toList());
            final long bound = ttfts.get(ttfts.size() / 2);
            final Map<String, WindowStats> liveWindows = decode(client, liveFinals);
            long expectedGood = 0;
            long liveGood = 0;
            for (WindowStats w : liveWindows.values()) {
                liveGood += w.getGoodRequests();
                for (RequestVerdict v : verdicts) {
                    if (v.getScenarioId().equals(w.getScenarioId())
                            && !v.getCompletionTimeUs().isBefore(w.getWindowStartUs()) && v.getCompletionTimeUs().isBefore(w.getWindowEndUs())
                            && v.getStatus() == RequestStatus.OK && v.getQualityPass() && v.getTtftUs() <= bound) {
                        expectedGood++;
                    }
                }
            }
            assertThat(Main.run("replay", "--replay-id", "tight", "--bootstrap-server", KAFKA.kafka().bootstrapServers(),
                    "--schema-registry", registry.url(), "--contract", CONTRACT_FILE.toString(), "--run-id", "live-run",
                    "--goodput", "ttft:" + bound / 1000.0, "--idle-seconds", "4")).isZero();
            final Map<String, WindowStats> tight = decode(client,
                    awaitFinals(client, Topics.WINDOW_STATS.name() + ".tight", liveFinals.size()));
            long tightGood = 0;
            for (String k : liveWindows.keySet()) {
                tightGood += tight.get(k).getGoodRequests();
                assertThat(tight.get(k).getRequestsTotal()).isEqualTo(liveWindows.get(k).getRequestsTotal());
            }
            assertThat(tightGood).isEqualTo(expectedGood).isLessThan(liveGood);
        }
    }

    private static Map<String, WindowStats> decode(SchemaRegistryClient client, Map<String, byte[]> raw) {
        return ResultTopics.decode(client, raw);
    }

    private static Map<String, byte[]> awaitFinals(SchemaRegistryClient client, String topic, int atLeast) throws Exception {
        final AvroDeserializer<WindowStats> d = new AvroDeserializer<>(client, WindowStats.class);
        final long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        Map<String, byte[]> out = new TreeMap<>();
        while (System.nanoTime() < deadline) {
            out = new TreeMap<>();
            for (ConsumerRecord<String, byte[]> r : readRaw(topic)) {
                if (d.deserialize(topic, r.value()).getIsFinal()) {
                    out.put(r.key(), r.value());
                }
            }
            if (out.size() >= atLeast) {
                return out;
            }
            Thread.sleep(500);
        }
        return out;
    }

    /** Every record of a topic by key and, when a key repeats (cost spans), by its order under the key; waits for at least {@code atLeast}. */
    private static Map<String, byte[]> awaitRecords(String topic, int atLeast) throws Exception {
        final long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        Map<String, byte[]> out = new TreeMap<>();
        while (System.nanoTime() < deadline) {
            out = new TreeMap<>();
            final Map<String, Integer> seen = new HashMap<>();
            for (ConsumerRecord<String, byte[]> r : readRaw(topic)) {
                final int n = seen.merge(r.key(), 1, Integer::sum);
                out.put(r.key() + "#" + n, r.value());
            }
            if (out.size() >= atLeast) {
                return out;
            }
            Thread.sleep(500);
        }
        return out;
    }

    private static <T extends SpecificRecord> List<T> read(SchemaRegistryClient client, String topic,
                                                                                   Class<T> type) {
        final AvroDeserializer<T> d = new AvroDeserializer<>(client, type);
        return readRaw(topic).stream().map(r -> d.deserialize(topic, r.value())).toList();
    }

    private static List<ConsumerRecord<String, byte[]>> readRaw(String topic) {
        return ResultTopics.readRaw(KAFKA.kafka().bootstrapServers(), topic);
    }
}

package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.generator.load.Scenario;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.simulator.SimConfig;
import dev.goodput.sink.PricesFile;
import dev.goodput.sink.SinkApp;
import dev.goodput.sink.SinkConfig;
import dev.goodput.topics.Topics;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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

    @Test
    void aReplayEqualsTheLiveRunAndAWhatIfCountsExactly(@TempDir Path dir) throws Exception {
        // 2 s windows (the production 5 s grace): a 12 s run closes five or six windows, and the replays must read that
        // windowing back from the live run's window records (not the 10 s default) to give the same bytes
        try (LiveRun run = new LiveRun(KAFKA.kafka(), dir, Duration.ofSeconds(2), Duration.ofSeconds(5))) {
            final SchemaRegistryClient client = run.client;
            // the live run: the streams-app processes events as the generator publishes them, and the sink prices them
            final SinkApp.Running liveSink = SinkApp.start(run.props, client, SinkApp.Options.of(
                    SinkConfig.defaults(SinkConfig.peaks(List.of(run.contract))),
                    PricesFile.load(Path.of("../config/prices.yaml")), "live-sink", dir.resolve("live-sink")));
            run.generate(SimConfig.defaults().withStep(4_000, 20), Duration.ofSeconds(30), Duration.ofSeconds(10),
                    new Scenario(64, 16, 40.0, null, "cold"), "live-run", 12.0);
            final Map<String, byte[]> liveFinals = run.awaitFinals(Topics.WINDOW_STATS.name(), 4, 0, Duration.ofSeconds(90));
            run.streams.close(Duration.ofSeconds(30));
            assertThat(liveFinals).hasSizeGreaterThanOrEqualTo(4);
            final Map<String, byte[]> liveCosts = awaitRecords(Topics.COST.name(), liveFinals.size());
            liveSink.close();
            final Map<String, byte[]> liveVerdicts = awaitRecords(Topics.VERDICTS.name(), 1);

            // replay with the same parameters: byte-identical final records
            assertThat(run.replay("same", "live-run", "--prices", "../config/prices.yaml")).isZero();
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
            final Map<String, byte[]> replayFinals = run.awaitFinals(Topics.WINDOW_STATS.name() + ".same", liveFinals.size(), 0, Duration.ofSeconds(90));
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
            final Map<String, WindowStats> liveWindows = ResultTopics.decode(client, liveFinals);
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
            assertThat(run.replay("tight", "live-run", "--goodput", "ttft:" + bound / 1000.0)).isZero();
            final Map<String, WindowStats> tight = ResultTopics.decode(client,
                    run.awaitFinals(Topics.WINDOW_STATS.name() + ".tight", liveFinals.size(), 0, Duration.ofSeconds(90)));
            long tightGood = 0;
            for (String k : liveWindows.keySet()) {
                tightGood += tight.get(k).getGoodRequests();
                assertThat(tight.get(k).getRequestsTotal()).isEqualTo(liveWindows.get(k).getRequestsTotal());
            }
            assertThat(tightGood).isEqualTo(expectedGood).isLessThan(liveGood);
            // no --prices: the what-if is priced with the live run's price versions, not left without cost
            assertThat(awaitRecords(Topics.COST.name() + ".tight", 1)).as("cost records of the replay").isNotEmpty();
            assertThat(read(client, Topics.COST.name() + ".tight", dev.goodput.avro.CostRecord.class))
                    .as("priced by the live versions").allSatisfy(c -> assertThat(c.getPriced()).isTrue());
        }
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

package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.WindowStats;
import dev.goodput.generator.load.Scenario;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.simulator.SimConfig;
import dev.goodput.topics.Control;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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

    private static final String RUN = "long-run";

    @Test
    void thirtySecondRequestsLiveAndTwoReplaysGiveByteIdenticalFinalWindows(@TempDir Path dir) throws Exception {
        try (LiveRun run = new LiveRun(KAFKA.kafka(), dir)) {
            // 150 ms per decode step, 200 output tokens: each request streams for about 30 s. The request and stall
            // timeouts are far above that, so a loaded machine that slows the streams makes the test slower, not red
            run.generate(SimConfig.defaults().withStep(150_000, 0), Duration.ofSeconds(600), Duration.ofSeconds(600),
                    new Scenario(64, 200, 1.5, null, "cold"), RUN, 12.0);
            // the generator ticked for a window and its grace, then marked the end of the run: every window closes
            final List<RequestEvent> requests = requests(run.client);
            final long ok = requests.stream().filter(r -> r.getStatus() == RequestStatus.OK).count();
            assertThat(ok).as("OK requests").isGreaterThanOrEqualTo(5);
            assertThat(requests.stream().filter(r -> r.getStatus() == RequestStatus.OK).mapToLong(r ->
                    r.getLastChunkTimeUs().toEpochMilli() - r.getFirstChunkTimeUs().toEpochMilli()).min().orElseThrow())
                    .as("shortest stream, ms").isGreaterThan(25_000);
            final long gaps = requests.stream().filter(r -> r.getStatus() == RequestStatus.OK)
                    .mapToLong(r -> r.getContentChunks() - 1).sum();
            final Map<String, byte[]> liveFinals = run.awaitFinals(Topics.WINDOW_STATS.name(), 1, requests.size(),
                    Duration.ofSeconds(300));
            run.streams.close(Duration.ofSeconds(30));
            final Map<String, WindowStats> decoded = ResultTopics.decode(run.client, liveFinals);
            assertThat(decoded.values().stream().mapToLong(WindowStats::getRequestsTotal).sum())
                    .as("requests in final windows").isEqualTo(requests.size());
            assertThat(decoded.values().stream().mapToLong(w -> w.getItl().getCount()).sum())
                    .as("ITL gaps in final windows").isEqualTo(gaps);
            assertThat(decoded.values().stream().mapToLong(WindowStats::getLateEvents).sum()).as("late events").isZero();

            for (String replay : List.of("first", "second")) {
                assertThat(run.replay(replay, RUN, "--prices", "../config/prices.yaml")).isZero();
                final Map<String, byte[]> finals = run.awaitFinals(Topics.WINDOW_STATS.name() + "." + replay, 1,
                        requests.size(), Duration.ofSeconds(300));
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

    private static List<ConsumerRecord<String, byte[]>> readRaw(String topic) {
        return ResultTopics.readRaw(KAFKA.kafka().bootstrapServers(), topic);
    }
}

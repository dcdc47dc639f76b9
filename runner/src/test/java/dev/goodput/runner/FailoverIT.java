package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.kafka.EmbeddedCluster;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.topics.DeadLetters;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker's death is a non-event for correctness (#61): a demo runs on a 3-node KRaft cluster, the
 * active controller (a broker leading some of the raw partitions too) is SIGKILLed mid-run and
 * started again 20 s later. Every measured request the generator counted has one verdict, none
 * twice (read committed), none refused as late and none judged incomplete for the cluster's delay,
 * every one is in a final window, and a replay of the run gives the same final windows byte for byte.
 */
class FailoverIT {

    private static final Pattern ACCOUNTED = Pattern.compile("Accounted: (\\d+) measured requests, (\\d+) verdicts; (\\d+) records refused");

    @Test
    void aControllerAndLeaderKilledMidRunLosesNothingMeasuredAndDoublesNothing(@TempDir Path dir) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(3);
             InProcessSchemaRegistry registry = InProcessSchemaRegistry.onKafka(cluster.bootstrapServers(), "_schemas", 0)) {
            final Path matrix = dir.resolve("matrix.yaml");
            Files.writeString(matrix, "prompt_tokens: [32]\noutput_tokens: [16]\nrates_rps: [10]\ncache: [cold, warm]\nduration_s: 20\n");
            final int killed;
            final String out;
            try (ChildCli demo = ChildCli.start(Map.of("GOODPUT_WINDOW", "5s"), "demo", "--bootstrap-server", cluster.bootstrapServers(),
                    "--schema-registry", registry.url(), "--contract", "../config/contract.yaml", "--prices", "../config/prices.yaml",
                    "--matrix", matrix.toString(), "--report-dir", dir.resolve("reports").toString(), "--duration", "300s")) {
                Thread.sleep(12_000); // into the first scenario: not a timing assertion, only where the fault falls
                try (Admin admin = cluster.admin()) {
                    killed = admin.describeMetadataQuorum().quorumInfo().get(60, TimeUnit.SECONDS).leaderId();
                }
                cluster.kill(killed);
                Thread.sleep(20_000);
                cluster.restart(killed);
                assertThat(demo.waitForExit()).as(demo.output()).isZero();
                out = demo.output();
            }
            final Matcher m = ACCOUNTED.matcher(out);
            assertThat(m.find()).as(out).isTrue();
            final long measured = Long.parseLong(m.group(1));
            assertThat(measured).as("measured requests").isGreaterThan(200);
            assertThat(Long.parseLong(m.group(2))).as("verdicts, node %d killed; %s", killed, out).isEqualTo(measured);
            assertThat(Long.parseLong(m.group(3))).as("records refused to the DLQ; %s", out).isZero();

            final Properties client = new Properties();
            client.put("bootstrap.servers", cluster.bootstrapServers());
            final SchemaRegistryClient schemas = new SchemaRegistryClient(registry.url());
            final List<ConsumerRecord<String, byte[]>> verdicts = read(client, Topics.VERDICTS.name());
            final Map<String, Integer> byKey = new HashMap<>();
            verdicts.forEach(r -> byKey.merge(r.key(), 1, Integer::sum));
            assertThat(byKey.values()).as("verdicts per request").allMatch(n -> n == 1);
            assertThat(byKey).hasSize((int) measured);
            final AvroDeserializer<RequestVerdict> v = new AvroDeserializer<>(schemas, RequestVerdict.class);
            assertThat(verdicts).extracting(r -> v.deserialize(Topics.VERDICTS.name(), r.value()).getFailedObjectives())
                    .as("no request judged incomplete for the cluster's delay").noneMatch(f -> f.contains("incomplete"));
            assertThat(read(client, Topics.DLQ.name())).extracting(r -> DeadLetters.header(r.headers(), DeadLetters.REASON))
                    .as("nothing refused late").doesNotContain("late");

            final Map<String, byte[]> live = finals(client, schemas, Topics.WINDOW_STATS.name());
            final AvroDeserializer<WindowStats> w = new AvroDeserializer<>(schemas, WindowStats.class);
            assertThat(live.values().stream().mapToLong(b -> w.deserialize(Topics.WINDOW_STATS.name(), b).getRequestsTotal()).sum())
                    .as("requests in final windows").isEqualTo(measured);
            assertThat(Main.run("replay", "--replay-id", "again", "--bootstrap-server", cluster.bootstrapServers(),
                    "--schema-registry", registry.url(), "--contract", "../config/contract.yaml", "--idle-seconds", "6")).isZero();
            final Map<String, byte[]> replayed = finals(client, schemas, Topics.WINDOW_STATS.name() + ".again");
            assertThat(replayed.keySet()).isEqualTo(live.keySet());
            live.forEach((k, b) -> assertThat(HexFormat.of().formatHex(replayed.get(k))).as("window %s", k)
                    .isEqualTo(HexFormat.of().formatHex(b)));
        }
    }

    /** Final window records by key, each key's last. */
    private static Map<String, byte[]> finals(Properties client, SchemaRegistryClient schemas, String topic) {
        final AvroDeserializer<WindowStats> d = new AvroDeserializer<>(schemas, WindowStats.class);
        final Map<String, byte[]> out = new java.util.TreeMap<>();
        for (ConsumerRecord<String, byte[]> r : read(client, topic)) {
            if (d.deserialize(topic, r.value()).getIsFinal()) {
                out.put(r.key(), r.value());
            }
        }
        return out;
    }

    /** Every committed record of a topic. */
    private static List<ConsumerRecord<String, byte[]>> read(Properties client, String topic) {
        final Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        final List<ConsumerRecord<String, byte[]>> out = new java.util.ArrayList<>();
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            final List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(60)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            final Map<TopicPartition, Long> ends = c.endOffsets(parts);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (parts.stream().anyMatch(tp -> c.position(tp) < ends.get(tp)) && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(500)).forEach(out::add);
            }
        }
        return out;
    }
}

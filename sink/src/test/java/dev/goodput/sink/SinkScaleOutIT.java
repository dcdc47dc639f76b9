package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.WindowStats;
import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.testing.SampleRecords;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two sink instances with one application id share the window stats of eight scenarios on six
 * partitions: both get tasks, every price reaches every task, and the cost records equal those of
 * a single instance byte for byte.
 */
@ExtendWith(KafkaBrokerExtension.class)
class SinkScaleOutIT {

    @Test
    void twoInstancesEmitWhatOneDoes(EmbeddedKafka kafka, @TempDir Path dir) throws Exception {
        final Instant t0 = Instant.ofEpochSecond((Instant.now().minusSeconds(3600).getEpochSecond() / 10) * 10);
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            final Properties props = new Properties();
            props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            try (Admin admin = kafka.admin()) {
                Topics.createMissing(admin, List.of(Topics.WINDOW_STATS.named("scale.windows")), (short) 1);
            }
            // two price versions: the second takes effect half way through the windows
            final GpuPrice before = GpuPrice.newBuilder(SampleRecords.price()).setPriceKey("example/h100").setUsdPerGpuHour(6.5)
                    .setEffectiveFromUs(t0.minusSeconds(3600)).build();
            final GpuPrice after = GpuPrice.newBuilder(before).setUsdPerGpuHour(4.0).setEffectiveFromUs(t0.plusSeconds(40)).build();
            final List<GpuPrice> prices = List.of(before, after);

            final SinkConfig one = config("one");
            final SinkConfig two = config("two");
            final SinkApp.Running single = SinkApp.start(props, client, SinkApp.Options.of(one, prices, "scale-one", dir.resolve("one")));
            final SinkApp.Running a = SinkApp.start(props, client, SinkApp.Options.of(two, prices, "scale-two", dir.resolve("two-a")));
            final SinkApp.Running b = SinkApp.start(props, client, SinkApp.Options.of(two, List.of(), "scale-two", dir.resolve("two-b")));
            try {
                // a refused price reaches the DLQ once per application, though good prices go to all six tasks
                SinkApp.publish(props, client, "scale.prices", List.of(GpuPrice.newBuilder(before).setUsdPerGpuHour(-1)
                        .setEffectiveFromUs(t0.minusSeconds(7200)).build()));
                // the prices reach every task before the windows: waited for in the tasks' own stores, not for a fixed time
                PriceStores.await(List.of(single.streams()), "example/h100", prices.size());
                PriceStores.await(List.of(a.streams(), b.streams()), "example/h100", prices.size());
                final int windows = publishWindows(kafka, client, t0);
                // each final window gives one per-window record and one per rolling span
                final int expected = windows * (1 + one.rollingSpans().size());
                final List<String> single1 = await(kafka, one.costTopic(), expected);
                final List<String> scaled = await(kafka, two.costTopic(), expected);
                assertThat(single1).hasSize(expected);
                assertThat(scaled).containsExactlyInAnyOrderElementsOf(single1);
                assertThat(a.streams().metadataForLocalThreads()).flatExtracting(t -> t.activeTasks()).isNotEmpty();
                assertThat(b.streams().metadataForLocalThreads()).flatExtracting(t -> t.activeTasks()).isNotEmpty();
                // both price versions were used, in every task: each scenario has windows priced at 6.50 and at 4.00
                final var reader = new AvroDeserializer<>(client, CostRecord.class);
                final Map<String, Set<Double>> used = new TreeMap<>();
                for (String r : scaled) {
                    final var cost = reader.deserialize("scale", HexFormat.of().parseHex(r.substring(r.lastIndexOf('|') + 1)));
                    if (cost.getSpan().equals("window")) {
                        used.computeIfAbsent(cost.getScenarioId(), k -> new TreeSet<>()).add(cost.getUsdPerGpuHour());
                    }
                }
                assertThat(used).hasSize(8).allSatisfy((k, v) -> assertThat(v).containsExactly(4.0, 6.5));
                assertThat(await(kafka, one.dlqTopic(), 1)).hasSize(1);
                assertThat(await(kafka, two.dlqTopic(), 1)).hasSize(1);
            } finally {
                b.close();
                a.close();
                single.close();
            }
        }
    }

    private static SinkConfig config(String name) {
        final SinkConfig d = SinkConfig.defaults(Map.of("c".repeat(64), 1400.0));
        return new SinkConfig("scale.prices", "scale.windows", "scale.cost." + name, "scale.dlq." + name, d.rollingSpans(),
                d.peakTokensPerS());
    }

    private static int publishWindows(EmbeddedKafka kafka, SchemaRegistryClient client, Instant t0) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        int n = 0;
        try (KafkaProducer<String, WindowStats> producer = new KafkaProducer<>(p, new StringSerializer(),
                new AvroSerializer<>(client, false))) {
            for (int w = 0; w < 8; w++) {
                for (int s = 0; s < 8; s++) {
                    final Instant start = t0.plusSeconds(10L * w);
                    final WindowStats ws = WindowStats.newBuilder(SampleRecords.windowStats()).setScenarioId("scenario-" + s)
                            .setWindowStartUs(start).setWindowEndUs(start.plusSeconds(10)).setIsFinal(true)
                            .setPriceKey("example/h100").setGpuCount(1).setRequestsTotal(100 + s).setGoodRequests(80 + w)
                            .setOutputTokensOk(7_000 + 10 * s).setOutputTokensGood(6_000 + 10 * w).build();
                    // keyed and partitioned as the streams-app writes them: one scenario's windows on one partition, in order
                    final String key = ws.getContractId() + "|" + ws.getScenarioId() + "|" + start.toEpochMilli() * 1000;
                    producer.send(new ProducerRecord<>("scale.windows", Topics.windowStatsPartition(key, Topics.WINDOW_STATS.partitions()),
                            start.plusSeconds(10).toEpochMilli() - 1, key, ws));
                    n++;
                }
            }
            producer.flush();
        }
        return n;
    }

    /** key|hex(value) of every record on the topic, once at least {@code expected} are there and no more arrive. */
    private static List<String> await(EmbeddedKafka kafka, String topic, int expected) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + topic);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        final List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            final long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            int quiet = 0;
            while (System.nanoTime() < deadline && (out.size() < expected || quiet < 8)) {
                final var records = c.poll(Duration.ofMillis(250));
                quiet = records.isEmpty() ? quiet + 1 : 0;
                for (var r : records) {
                    out.add(r.key() + "|" + HexFormat.of().formatHex(r.value()));
                }
            }
        }
        return out;
    }
}

package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.WindowStats;
import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.testing.SampleRecords;
import dev.goodput.topics.Topics;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sink --files} started again over the same folder writes each window and cost record once:
 * it used to read the topics from the start again and append them all a second time. A line cut
 * short by a crash is replaced by the whole row. Every update of a rolling span is a record of its
 * own (the export's key used to leave out the span's end, and kept only the first).
 */
@ExtendWith(KafkaBrokerExtension.class)
class FileExportIT {

    private static final int WINDOWS = 5;

    @Test
    void aRestartedExportWritesEachRecordOnce(EmbeddedKafka kafka, @TempDir Path dir) throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            final Properties props = new Properties();
            props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            try (Admin admin = kafka.admin()) {
                Topics.createMissing(admin, List.of(Topics.WINDOW_STATS.named("fx.windows"), Topics.COST.named("fx.cost")), (short) 1);
            }
            final Path files = dir.resolve("files");
            publish(props, client, 0, WINDOWS);
            try (FileExporter first = new FileExporter(props, client, "fx.windows", "fx.cost", files)) {
                await(first, 3L * WINDOWS);
            }
            // a crash in the middle of a row: the last line has no end
            Files.writeString(files.resolve("cost.jsonl"), "{\"contract_id\":\"cut", StandardOpenOption.APPEND);
            publish(props, client, WINDOWS, WINDOWS + 1);
            try (FileExporter again = new FileExporter(props, client, "fx.windows", "fx.cost", files)) {
                await(again, 3L * (WINDOWS + 1));
            }
            // every record of the topic once: each window's cost and each update of the rolling span
            for (String name : List.of("window-stats", "cost")) {
                final int records = name.equals("cost") ? 2 * (WINDOWS + 1) : WINDOWS + 1;
                final List<String> jsonl = Files.readAllLines(files.resolve(name + ".jsonl"), StandardCharsets.UTF_8);
                final List<String> csv = Files.readAllLines(files.resolve(name + ".csv"), StandardCharsets.UTF_8);
                assertThat(jsonl).as(name).hasSize(records).doesNotHaveDuplicates().allMatch(l -> l.endsWith("}"));
                assertThat(csv).as(name + " (header and rows)").hasSize(records + 1).doesNotHaveDuplicates();
            }
        }
    }

    private static void publish(Properties props, SchemaRegistryClient client, int from, int to) throws Exception {
        try (KafkaProducer<String, SpecificRecord> producer = new KafkaProducer<>(props, new StringSerializer(),
                new AvroSerializer<>(client, false))) {
            for (int i = from; i < to; i++) {
                final Instant start = SampleRecords.T0.plusSeconds(10L * i);
                producer.send(new ProducerRecord<>("fx.windows", "w" + i, WindowStats.newBuilder(SampleRecords.windowStats())
                        .setWindowStartUs(start).setWindowEndUs(start.plusSeconds(10)).setIsFinal(true).build())).get();
                producer.send(new ProducerRecord<>("fx.cost", "c" + i, CostRecord.newBuilder(SampleRecords.cost())
                        .setSpan("window").setWindowStartUs(start).setWindowEndUs(start.plusSeconds(10)).build())).get();
                // a rolling span's update: the same span and start as the one before, a later end
                producer.send(new ProducerRecord<>("fx.cost", "r" + i, CostRecord.newBuilder(SampleRecords.cost())
                        .setSpan("1m").setWindowStartUs(SampleRecords.T0).setWindowEndUs(start.plusSeconds(10)).build())).get();
            }
        }
    }

    /** Waits until the export has read {@code n} records; the bound only keeps a broken build from hanging. */
    private static void await(FileExporter export, long n) throws InterruptedException {
        final long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (export.recordsSeen() < n && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(export.recordsSeen()).isEqualTo(n);
    }
}

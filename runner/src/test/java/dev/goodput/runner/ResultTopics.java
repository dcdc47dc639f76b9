package dev.goodput.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import dev.goodput.avro.WindowStats;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reading result topics in the integration tests: committed records only, until a second of quiet. */
final class ResultTopics {

    private ResultTopics() {
    }

    /** Every committed record of a topic, read from the start until nothing comes for a second. */
    static List<ConsumerRecord<String, byte[]>> readRaw(String bootstrap, String topic) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        final List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            int idle = 0;
            while (idle < 4) {
                final var records = c.poll(Duration.ofMillis(250));
                idle = records.isEmpty() ? idle + 1 : 0;
                records.forEach(out::add);
            }
        }
        return out;
    }

    /** Window records by key, decoded. */
    static Map<String, WindowStats> decode(SchemaRegistryClient client, Map<String, byte[]> raw) {
        final AvroDeserializer<WindowStats> d = new AvroDeserializer<>(client, WindowStats.class);
        final Map<String, WindowStats> out = new TreeMap<>();
        raw.forEach((k, v) -> out.put(k, d.deserialize("x", v)));
        return out;
    }
}

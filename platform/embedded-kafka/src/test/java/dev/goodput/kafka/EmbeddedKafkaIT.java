package dev.goodput.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaIT {

    @Test
    void restartKeepsRecordsAndPorts() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.startTemporary()) {
            final String bootstrap = kafka.bootstrapServers();
            createTopic(kafka, "t");
            produce(bootstrap, "t", "a", "b");
            kafka.restart();
            assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);
            produce(bootstrap, "t", "c");
            assertThat(consumeAll(bootstrap, "t", 3)).containsExactly("a", "b", "c");
        }
    }

    @Test
    void persistentFolderIsReopenedByANewBroker(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka first = EmbeddedKafka.startPersistent(dir, 0, Map.of())) {
            createTopic(first, "kept");
            produce(first.bootstrapServers(), "kept", "x");
        }
        assertThat(Files.exists(dir.resolve("log").resolve("meta.properties"))).isTrue();
        try (EmbeddedKafka second = EmbeddedKafka.startPersistent(dir, 0, Map.of())) {
            assertThat(consumeAll(second.bootstrapServers(), "kept", 1)).containsExactly("x");
        }
    }

    @Test
    void temporaryFolderIsRemovedOnClose() {
        final Path dir;
        try (EmbeddedKafka kafka = EmbeddedKafka.startTemporary()) {
            dir = kafka.dataDir();
            assertThat(Files.exists(dir)).isTrue();
        }
        assertThat(Files.exists(dir)).isFalse();
    }

    static void createTopic(EmbeddedKafka kafka, String topic) throws Exception {
        try (Admin admin = kafka.admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    static void produce(String bootstrap, String topic, String... values) throws Exception {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, v, v)).get();
            }
        }
    }

    static List<String> consumeAll(String bootstrap, String topic, int expected) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        final List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                 new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (out.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(new String(r.value().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }
}

package dev.goodput.registry;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.goodput.config.ClientConfig;
import dev.goodput.config.Replication;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Keeps the registry in a compacted, single-partition Kafka topic ({@code _schemas} by default),
 * with keys and values laid out as Confluent's registry writes them, so a kept local data folder
 * comes back with the same schema ids and a reader of the topic sees familiar records.
 */
final class KafkaSchemaLog implements SchemaLog {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Properties client;
    private final String bootstrap;
    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;

    /** @param client the cluster's client properties (bootstrap, and security settings where it has them) */
    KafkaSchemaLog(Properties client, String topic) {
        this.client = client;
        this.bootstrap = client.getProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
        this.topic = topic;
        ensureTopic();
        final Properties p = ClientConfig.forProducer(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private void ensureTopic() {
        try (Admin admin = Admin.create(ClientConfig.forAdmin(client))) {
            try {
                // the schemas every record of every topic needs: replicated as the cluster (or the user) says, never 1
                admin.createTopics(List.of(new NewTopic(topic, 1, Replication.factor(client))
                        .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))))
                        .all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            Replication.check(admin, List.of(topic));
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create the registry topic " + topic + " on " + bootstrap
                    + ": " + e.getCause().getMessage(), e);
        } catch (InterruptedException | TimeoutException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("Kafka at " + bootstrap + " did not answer while creating " + topic, e);
        }
    }

    @Override
    public void replay(Consumer<RegistryState.Version> schemas, BiConsumer<String, String> configs) {
        final Properties p = ClientConfig.forConsumer(client);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer =
                 new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final long end = consumer.endOffsets(List.of(tp), TIMEOUT).get(tp);
            while (consumer.position(tp, TIMEOUT) < end) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    apply(r, schemas, configs);
                }
            }
        }
    }

    private static void apply(ConsumerRecord<byte[], byte[]> r, Consumer<RegistryState.Version> schemas,
                              BiConsumer<String, String> configs) {
        if (r.key() == null || r.value() == null) {
            return;
        }
        try {
            final JsonNode key = JSON.readTree(r.key());
            final JsonNode value = JSON.readTree(r.value());
            switch (key.path("keytype").asText()) {
                case "SCHEMA" -> {
                    if (!value.path("deleted").asBoolean(false)) {
                        schemas.accept(new RegistryState.Version(value.get("subject").asText(),
                                value.get("version").asInt(), value.get("id").asInt(), value.get("schema").asText()));
                    }
                }
                case "CONFIG" -> configs.accept(key.path("subject").isNull() || !key.has("subject")
                        ? null : key.get("subject").asText(), value.get("compatibilityLevel").asText());
                default -> {
                    // other key types (NOOP, MODE, DELETE_SUBJECT) carry nothing this registry uses
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("unreadable registry record at offset " + r.offset() + " of " + r.topic(), e);
        }
    }

    @Override
    public void appendSchema(RegistryState.Version v) {
        final ObjectNode key = JSON.createObjectNode().put("keytype", "SCHEMA").put("subject", v.subject())
                .put("version", v.version()).put("magic", 1);
        final ObjectNode value = JSON.createObjectNode().put("subject", v.subject()).put("version", v.version())
                .put("id", v.id()).put("schema", v.schema()).put("deleted", false);
        send(key, value);
    }

    @Override
    public void appendConfig(String subjectOrNull, String level) {
        final ObjectNode key = JSON.createObjectNode().put("keytype", "CONFIG");
        if (subjectOrNull == null) {
            key.putNull("subject");
        } else {
            key.put("subject", subjectOrNull);
        }
        key.put("magic", 0);
        send(key, JSON.createObjectNode().put("compatibilityLevel", level));
    }

    private void send(ObjectNode key, ObjectNode value) {
        try {
            producer.send(new ProducerRecord<>(topic, key.toString().getBytes(StandardCharsets.UTF_8),
                    value.toString().getBytes(StandardCharsets.UTF_8))).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("writing to " + topic + " failed: " + e.getCause().getMessage(), e);
        } catch (InterruptedException | TimeoutException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("writing to " + topic + " timed out", e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}

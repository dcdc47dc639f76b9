package dev.goodput.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.TokenEvent;
import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.testing.SampleRecords;
import dev.goodput.topics.Topic;
import dev.goodput.topics.Topics;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Avro records through a real broker and a registry that keeps its schemas on that broker. */
@ExtendWith(KafkaBrokerExtension.class)
class AvroThroughKafkaIT {

    private static final int N = 50;

    @Test
    void recordsRoundTripThroughTheBrokerAndAnOutsideDecoderReadsThem(EmbeddedKafka kafka, @TempDir Path dir)
            throws Exception {
        final String schemasTopic = "_schemas_rt";
        try (Admin admin = kafka.admin()) {
            Topics.createMissing(admin, List.of(Topics.TOKENS, Topics.REQUESTS), (short) 1);
            final String retention = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC,
                    Topics.TOKENS.name()))).all().get(30, TimeUnit.SECONDS).values().iterator().next()
                    .get("retention.ms").value();
            assertThat(retention).as("raw topics are kept for replay").isEqualTo("-1");
        }
        final List<TokenEvent> sent = new ArrayList<>();
        final int tokenSchemaId;
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.onKafka(kafka.bootstrapServers(), schemasTopic, 0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            try (KafkaProducer<String, TokenEvent> producer = new KafkaProducer<>(producerProps(kafka),
                    new StringSerializer(), new AvroSerializer<>(client, false));
                 KafkaProducer<String, RequestEvent> requests = new KafkaProducer<>(producerProps(kafka),
                    new StringSerializer(), new AvroSerializer<>(client, false))) {
                for (int i = 0; i < N; i++) {
                    final TokenEvent t = TokenEvent.newBuilder(SampleRecords.token()).setRequestId("req-" + i)
                            .setChunkIndex(i).build();
                    sent.add(t);
                    producer.send(new ProducerRecord<>(Topics.TOKENS.name(), t.getRequestId(), t));
                }
                requests.send(new ProducerRecord<>(Topics.REQUESTS.name(), "req-0", SampleRecords.request())).get();
                producer.flush();
            }
            final List<TokenEvent> received = consume(kafka, Topics.TOKENS, new AvroDeserializer<>(client, TokenEvent.class), N);
            assertThat(received).containsExactlyInAnyOrderElementsOf(sent);
            assertThat(consume(kafka, Topics.REQUESTS, new AvroDeserializer<>(client, RequestEvent.class), 1))
                    .containsExactly(SampleRecords.request());
            tokenSchemaId = client.version(Topics.TOKENS.name() + "-value", "latest").id();

            decodeOutsideTheJvm(kafka, registry.url(), dir, sent);
        }

        // A new registry over the same topic hands out the same ids, and the next id for a new schema.
        try (InProcessSchemaRegistry again = InProcessSchemaRegistry.onKafka(kafka.bootstrapServers(), schemasTopic, 0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(again.url());
            assertThat(client.getById(tokenSchemaId)).isEqualTo(TokenEvent.getClassSchema());
            assertThat(client.register(Topics.TOKENS.name() + "-value", TokenEvent.getClassSchema())).isEqualTo(tokenSchemaId);
            final int next = client.register("other-value", Schema.create(Schema.Type.STRING));
            assertThat(next).isGreaterThan(tokenSchemaId);
            assertThat(consume(kafka, Topics.TOKENS, new AvroDeserializer<>(client, TokenEvent.class), N)).hasSize(N);
        }
    }

    /** Confirms the wire format with Apache Avro's Python decoder (Debian python3-avro). */
    private static void decodeOutsideTheJvm(EmbeddedKafka kafka, String registryUrl, Path dir, List<TokenEvent> sent)
            throws IOException, InterruptedException {
        final boolean available = new ProcessBuilder("/usr/bin/python3", "-c", "import avro.io").start().waitFor() == 0;
        if (!available) {
            // CI installs python3-avro; there the check must run. Elsewhere it is skipped with a reason.
            assertThat(System.getenv("CI")).as("python3-avro is required in CI (apt-get install python3-avro)")
                    .isNotEqualTo("true");
            Assumptions.abort("python3-avro is not installed: apt-get install python3-avro");
        }
        final List<byte[]> raw = consume(kafka, Topics.TOKENS, new ByteArrayDeserializer(), N);
        final Path hex = dir.resolve("records.hex");
        final List<String> lines = raw.stream().map(b -> HexFormat.of().formatHex(b)).toList();
        Files.write(hex, lines, StandardCharsets.UTF_8);
        final Process p = new ProcessBuilder("/usr/bin/python3", Path.of("src/test/python/decode_wire.py").toString(),
                registryUrl, hex.toString()).redirectErrorStream(false).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        final String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("decoder stderr: %s", err).isEqualTo(0);
        final ObjectMapper json = new ObjectMapper();
        final List<String> ids = new ArrayList<>();
        for (String line : out.strip().split("\n")) {
            final JsonNode n = json.readTree(line);
            ids.add(n.get("request_id").asText());
            final TokenEvent expected = sent.stream().filter(t -> t.getRequestId().equals(n.get("request_id").asText()))
                    .findFirst().orElseThrow();
            assertThat(n.get("chunk_index").asInt()).isEqualTo(expected.getChunkIndex());
            assertThat(n.get("kind").asText()).isEqualTo(expected.getKind().name());
            assertThat(n.get("tokens").asInt()).isEqualTo(expected.getTokens());
            assertThat(n.get("contract_id").asText()).isEqualTo(expected.getContractId());
            // python3-avro renders timestamp-micros as a datetime: 2026-11-29 12:00:00.123456+00:00
            assertThat(n.get("arrival_time_us").asText()).isEqualTo("2026-11-29 12:00:00.123456+00:00");
        }
        assertThat(ids).containsExactlyInAnyOrderElementsOf(sent.stream().map(TokenEvent::getRequestId).toList());
    }

    private static Properties producerProps(EmbeddedKafka kafka) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        return p;
    }

    private static <V> List<V> consume(EmbeddedKafka kafka, Topic<?> topic, Deserializer<V> valueDeserializer, int expected) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        final List<V> out = new ArrayList<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(p, new StringDeserializer(), valueDeserializer)) {
            consumer.subscribe(List.of(topic.name()));
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (out.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, V> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(r.value());
                }
            }
        }
        return out;
    }
}

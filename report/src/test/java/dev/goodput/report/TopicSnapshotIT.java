package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Properties;

import dev.goodput.avro.RequestEvent;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** One record with an unknown schema id among good ones: read with a tally, it is counted and passed over. */
@ExtendWith(KafkaBrokerExtension.class)
class TopicSnapshotIT {

    @Test
    void anUnreadableRecordIsCountedNotFatal(EmbeddedKafka kafka) throws Exception {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            final Properties props = new Properties();
            props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            try (Admin admin = kafka.admin()) {
                Topics.createMissing(admin, List.of(Topics.REQUESTS.named("snap.requests").withPartitions(1)), (short) 1);
            }
            try (KafkaProducer<String, RequestEvent> good = new KafkaProducer<>(props, new StringSerializer(), new AvroSerializer<>(client, false));
                 KafkaProducer<String, byte[]> bad = new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
                good.send(new ProducerRecord<>("snap.requests", "a", SampleRecords.request())).get();
                // the wire format with schema id 99999, which the registry never gave out
                bad.send(new ProducerRecord<>("snap.requests", "x", new byte[] {0, 0, 1, (byte) 0x86, (byte) 0x9f, 2})).get();
                good.send(new ProducerRecord<>("snap.requests", "b", SampleRecords.request())).get();
            }
            final AvroDeserializer<RequestEvent> d = new AvroDeserializer<>(client, RequestEvent.class);
            assertThatThrownBy(() -> TopicSnapshot.read(props, "snap.requests", d)).hasMessageContaining("99999");
            final TopicSnapshot.Skipped skipped = new TopicSnapshot.Skipped();
            assertThat(TopicSnapshot.read(props, "snap.requests", d, skipped)).hasSize(2);
            assertThat(skipped.counts()).hasSize(1).allSatisfy((where, n) -> {
                assertThat(where).startsWith("snap.requests (");
                assertThat(n).isEqualTo(1L);
            });
        }
    }
}

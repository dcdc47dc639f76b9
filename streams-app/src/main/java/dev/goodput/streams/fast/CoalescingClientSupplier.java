package dev.goodput.streams.fast;

import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaClientSupplier;

/** Kafka's own clients, as Kafka Streams makes them, with the main consumer wrapped in a {@link CoalescingConsumer}. */
public final class CoalescingClientSupplier implements KafkaClientSupplier {

    private final String tokensTopic;

    public CoalescingClientSupplier(String tokensTopic) {
        this.tokensTopic = tokensTopic;
    }

    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return Admin.create(config);
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        final TokenBuffers buffers = new TokenBuffers(tokensTopic);
        return new CoalescingConsumer(new KafkaConsumer<>(config, buffers, buffers), tokensTopic);
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return bytes(config);
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return bytes(config);
    }

    private static Consumer<byte[], byte[]> bytes(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}

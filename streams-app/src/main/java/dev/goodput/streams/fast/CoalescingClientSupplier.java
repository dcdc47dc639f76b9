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
import org.apache.kafka.streams.StreamsConfig;

/** Kafka's own clients, as Kafka Streams makes them, with the main consumer wrapped in a {@link CoalescingConsumer}. */
public final class CoalescingClientSupplier implements KafkaClientSupplier {

    private final String tokensTopic;

    public CoalescingClientSupplier(String tokensTopic) {
        this.tokensTopic = tokensTopic;
    }

    /**
     * Kafka Streams' {@code buffered.records.per.partition} with this supplier's main consumer: its
     * default counts records, and a record here is up to {@link CoalescingConsumer#MAX_BATCH} events,
     * so as many events as that default is this many batches. With the default itself a partition
     * could queue 64 times the events (64,000, about 9 MB of frames), held through young collections.
     */
    public static int bufferedBatches() {
        final int records = (Integer) StreamsConfig.configDef().defaultValues().get(StreamsConfig.BUFFERED_RECORDS_PER_PARTITION_CONFIG);
        return Math.max(1, (records + CoalescingConsumer.MAX_BATCH - 1) / CoalescingConsumer.MAX_BATCH);
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

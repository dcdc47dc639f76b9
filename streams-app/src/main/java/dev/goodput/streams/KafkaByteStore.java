package dev.goodput.streams;

import java.util.Map;
import java.util.function.BiConsumer;

import dev.goodput.assembly.ByteStore;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/** A Kafka Streams key-value store as the request engine's {@link ByteStore}: changelogged, restored by Kafka Streams. */
final class KafkaByteStore implements ByteStore {
    private final KeyValueStore<String, byte[]> inner;

    KafkaByteStore(KeyValueStore<String, byte[]> inner) {
        this.inner = inner;
    }

    /** The processor's store named {@code name}. */
    static KafkaByteStore of(ProcessorContext<?, ?> ctx, String name) {
        return new KafkaByteStore(ctx.getStateStore(name));
    }

    /** A builder for the topology: an in-memory, cached store with a changelog named after {@code name}. */
    static StoreBuilder<KeyValueStore<String, byte[]>> builder(String name) {
        return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), Serdes.ByteArray())
                .withCachingEnabled().withLoggingEnabled(Map.of());
    }

    @Override
    public void put(String key, byte[] value) {
        inner.put(key, value);
    }

    @Override
    public void delete(String key) {
        inner.delete(key);
    }

    @Override
    public void forEach(BiConsumer<String, byte[]> entry) {
        try (KeyValueIterator<String, byte[]> it = inner.all()) {
            while (it.hasNext()) {
                final var kv = it.next();
                entry.accept(kv.key, kv.value);
            }
        }
    }
}

package dev.goodput.streams;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import dev.goodput.bytes.StateCodec;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Live, mutable objects (histograms, in-flight requests) kept over a public, changelogged key-value
 * store: a processor reads and changes the objects, and {@link #writeBack} writes the entries it
 * changed into the store before the processor returns from the record or punctuation that changed
 * them. So everything a commit covers (the store's changelog, the output, the input offsets) agrees
 * under exactly-once by Kafka Streams' own public contract: a commit happens only between records and
 * punctuations, and by then every change is in the store. The store's cache (on) turns the many
 * writes of a hot entry between two commits into one changelog record.
 *
 * <p>Processors call {@link #load()} in their {@code init} (restoration is complete by then): a task
 * that is revived after a crash calls it again and starts from what was committed.
 */
final class LiveStore<V> {

    /** A value's layout, told when the value has been written. */
    interface Codec<V> extends StateCodec<V> {

        /** Called after a value was written (lets values keep their own dirty flag). */
        default void persisted(V value) {
        }
    }

    private final KeyValueStore<String, byte[]> inner;
    private final Codec<V> codec;
    private final Map<String, V> live = new HashMap<>();
    private final Set<String> dirty = new HashSet<>();
    private final Set<String> removed = new HashSet<>();
    /** Keys written into the store and not deleted since: only these need a tombstone when removed. */
    private final Set<String> stored = new HashSet<>();

    LiveStore(KeyValueStore<String, byte[]> inner, Codec<V> codec) {
        this.inner = inner;
        this.codec = codec;
    }

    /** A builder for the topology: an in-memory, cached store with a changelog named after {@code name}. */
    static StoreBuilder<KeyValueStore<String, byte[]>> builder(String name) {
        return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), Serdes.ByteArray())
                .withCachingEnabled().withLoggingEnabled(Map.of());
    }

    /** Rebuilds the live objects from the restored store. */
    void load() {
        live.clear();
        dirty.clear();
        removed.clear();
        stored.clear();
        try (KeyValueIterator<String, byte[]> it = inner.all()) {
            while (it.hasNext()) {
                final var kv = it.next();
                live.put(kv.key, codec.decode(kv.value));
                stored.add(kv.key);
            }
        }
    }

    V get(String key) {
        return live.get(key);
    }

    /** Adds or replaces an entry; written at the next {@link #writeBack}. */
    void put(String key, V value) {
        live.put(key, value);
        dirty.add(key);
        removed.remove(key);
    }

    /** Marks an entry changed in place. */
    void touch(String key) {
        dirty.add(key);
    }

    /**
     * Drops the pending write of an entry whose stored value still stands for what a restart must
     * know (the caller's judgement: {@link InflightRequests#finish}).
     */
    void untouch(String key) {
        dirty.remove(key);
    }

    /** Whether the next {@link #writeBack} writes an entry. */
    boolean pending() {
        return !dirty.isEmpty();
    }

    void remove(String key) {
        if (live.remove(key) != null) {
            dirty.remove(key);
            removed.add(key);
        }
    }

    /** The live entries; mutate values only through {@link #touch}. */
    Map<String, V> entries() {
        return live;
    }

    int size() {
        return live.size();
    }

    /** Writes the entries changed since the last call into the store, and deletes the removed ones. */
    void writeBack() {
        if (!dirty.isEmpty()) {
            for (String k : dirty) {
                final V v = live.get(k);
                if (v != null) {
                    inner.put(k, codec.encode(v));
                    codec.persisted(v);
                    stored.add(k);
                }
            }
            dirty.clear();
        }
        if (!removed.isEmpty()) {
            // an entry that came and went within one record never reached the store and needs no tombstone
            for (String k : removed) {
                if (stored.remove(k)) {
                    inner.delete(k);
                }
            }
            removed.clear();
        }
    }

    /** Writes back each of {@code stores}. */
    static void writeBack(LiveStore<?>... stores) {
        for (LiveStore<?> s : stores) {
            s.writeBack();
        }
    }
}

package dev.goodput.streams.fast;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.goodput.serde.StateCodec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * A state store of live, mutable objects (histograms, in-flight requests) that are serialized only
 * when Kafka Streams commits: entries changed since the last commit are written to a changelogged
 * in-memory key-value store inside the commit, so the changelog, the output and the input offsets
 * still move together under exactly-once, and a restarted task rebuilds the same objects from the
 * changelog. This is what keeps per-record work free of (de)serialization.
 *
 * <p>Processors must call {@link #load()} in their {@code init} (restoration is complete by then).
 *
 * <p>Why {@link CachedStateStore} (an internal interface): in Kafka Streams 4.4 a task's
 * {@code prepareCommit} flushes caches ({@code flushCache()}) before the transaction commits, while
 * {@link StateStore#commit} only runs after it. Writing the changed objects in {@code flushCache}
 * puts them in the same transaction as the input offsets they reflect; writing them later would
 * lose the last commit interval on a crash. StreamsRestartIT checks this against a real broker.
 *
 * <p>Why the first store flushed in a commit writes the changes of every store its thread changed:
 * Kafka Streams commits a thread's tasks one after another, and each task's {@code prepareCommit}
 * writes its own stores and then waits until the thread's producer has everything acknowledged. With
 * four tasks (two partitions, two sub-topologies) that was four waits for the broker in every commit,
 * each at least one produce round trip. Written all at once, the first wait covers everything and the
 * later ones find nothing outstanding. Why this keeps exactly-once: the tasks of a thread share one
 * producer and so one transaction (exactly-once v2), in which a task's forwarded output already goes
 * whether or not that task is the one committing; Kafka Streams therefore commits or aborts all of
 * them together, and a store's changes written a moment early land in the same transaction as its
 * offsets. A store closed before the commit is not written (a task closed dirty discards its changes).
 */
public final class ObjectStore<V> implements StateStore, CachedStateStore<Object, Object> {

    /** A value's layout, told when the value has been written. */
    public interface Codec<V> extends StateCodec<V> {

        /** Called after a value was written at a commit (lets values keep their own dirty flag). */
        default void persisted(V value) {
        }
    }

    private final KeyValueStore<Bytes, byte[]> inner;
    private final Codec<V> codec;
    private final Map<String, V> live = new HashMap<>();
    private final Set<String> dirty = new HashSet<>();
    private final Set<String> removed = new HashSet<>();
    /** Whether this store is in the changed list of the thread that changed it. */
    private boolean listed;
    private volatile boolean closed;

    /** The stores each thread changed since it last wrote them; one thread's tasks commit together. */
    private static final ThreadLocal<List<ObjectStore<?>>> CHANGED = ThreadLocal.withInitial(ArrayList::new);

    /** Over an inner store, for tests; the topology uses {@link #builder}. */
    public static <V> ObjectStore<V> over(KeyValueStore<Bytes, byte[]> inner, Codec<V> codec) {
        return new ObjectStore<>(inner, codec);
    }

    private ObjectStore(KeyValueStore<Bytes, byte[]> inner, Codec<V> codec) {
        this.inner = inner;
        this.codec = codec;
    }

    /** A builder for the topology: an in-memory store with a changelog named after {@code name}. */
    public static <V> StoreBuilder<ObjectStore<V>> builder(String name, Codec<V> codec) {
        final StoreBuilder<KeyValueStore<Bytes, byte[]>> innerBuilder = Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(name), Serdes.Bytes(),
                Serdes.ByteArray()).withCachingDisabled();
        return new Builder<>(innerBuilder, codec);
    }

    /** Rebuilds the live objects from the restored store. */
    public void load() {
        live.clear();
        dirty.clear();
        removed.clear();
        try (KeyValueIterator<Bytes, byte[]> it = inner.all()) {
            while (it.hasNext()) {
                final var kv = it.next();
                live.put(new String(kv.key.get(), StandardCharsets.UTF_8), codec.decode(kv.value));
            }
        }
    }

    public V get(String key) {
        return live.get(key);
    }

    /** Adds or replaces an entry; it will be persisted at the next commit. */
    public void put(String key, V value) {
        live.put(key, value);
        dirty.add(key);
        removed.remove(key);
        changed();
    }

    /** Marks an entry changed in place. */
    public void touch(String key) {
        dirty.add(key);
        changed();
    }

    public void remove(String key) {
        if (live.remove(key) != null) {
            dirty.remove(key);
            removed.add(key);
            changed();
        }
    }

    private void changed() {
        if (!listed) {
            listed = true;
            CHANGED.get().add(this);
        }
    }

    /** The live entries; mutate values only through {@link #touch}. */
    public Map<String, V> entries() {
        return live;
    }

    public int size() {
        return live.size();
    }

    /** Writes this store's changes and those of every other store this thread changed since its last commit. */
    @Override
    public void flushCache() {
        final List<ObjectStore<?>> changed = CHANGED.get();
        for (ObjectStore<?> s : changed) {
            s.listed = false;
            if (s != this && !s.closed) {
                s.persist();
            }
        }
        changed.clear();
        persist();
    }

    @Override
    public boolean setFlushListener(CacheFlushListener<Object, Object> listener, boolean sendOldValues) {
        return false;
    }

    @Override
    public void clearCache() {
        // the live objects are the state: a task closed dirty discards this store instance anyway
    }

    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        persist();
        inner.commit(changelogOffsets);
    }

    @Override
    public void flush() {
        persist();
        inner.flush();
    }

    private void persist() {
        for (String k : dirty) {
            final V v = live.get(k);
            if (v != null) {
                inner.put(Bytes.wrap(k.getBytes(StandardCharsets.UTF_8)), codec.encode(v));
                codec.persisted(v);
            }
        }
        for (String k : removed) {
            // most entries (in-flight requests) come and go between two commits: the changelog never
            // saw them and needs no tombstone, which saves a produced record per request
            final Bytes key = Bytes.wrap(k.getBytes(StandardCharsets.UTF_8));
            if (inner.get(key) != null) {
                inner.delete(key);
            }
        }
        dirty.clear();
        removed.clear();
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        // a task closed dirty and revived opens the same store again
        closed = false;
        inner.init(context, root);
    }

    @Override
    public void close() {
        // a clean close flushed the changes before; a dirty one discards them
        closed = true;
        dirty.clear();
        removed.clear();
        inner.close();
    }

    @Override
    public boolean persistent() {
        return inner.persistent();
    }

    @Override
    public boolean isOpen() {
        return inner.isOpen();
    }

    @Override
    public Position getPosition() {
        return inner.getPosition();
    }

    /** Builds the outer store around the inner changelogged one. */
    private static final class Builder<V> implements StoreBuilder<ObjectStore<V>> {
        private StoreBuilder<KeyValueStore<Bytes, byte[]>> inner;
        private final Codec<V> codec;

        Builder(StoreBuilder<KeyValueStore<Bytes, byte[]>> inner, Codec<V> codec) {
            this.inner = inner;
            this.codec = codec;
        }

        @Override
        public StoreBuilder<ObjectStore<V>> withCachingEnabled() {
            return this;
        }

        @Override
        public StoreBuilder<ObjectStore<V>> withCachingDisabled() {
            return this;
        }

        @Override
        public StoreBuilder<ObjectStore<V>> withLoggingEnabled(Map<String, String> config) {
            inner = inner.withLoggingEnabled(config);
            return this;
        }

        @Override
        public StoreBuilder<ObjectStore<V>> withLoggingDisabled() {
            inner = inner.withLoggingDisabled();
            return this;
        }

        @Override
        public ObjectStore<V> build() {
            return new ObjectStore<>(inner.build(), codec);
        }

        @Override
        public Map<String, String> logConfig() {
            return inner.logConfig();
        }

        @Override
        public boolean loggingEnabled() {
            return inner.loggingEnabled();
        }

        @Override
        public String name() {
            return inner.name();
        }
    }
}

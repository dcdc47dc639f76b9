package dev.goodput.assembly;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import dev.goodput.bytes.StateCodec;

/**
 * Live, mutable objects (histograms, in-flight requests) kept over a {@link ByteStore}, under the
 * streams-app a public, changelogged Kafka Streams key-value store: a processor reads and changes
 * the objects, and {@link #writeBack} writes the entries it
 * changed into the store before the processor returns from the record or punctuation that changed
 * them. So everything a commit covers (the store's changelog, the output, the input offsets) agrees
 * under exactly-once by Kafka Streams' own public contract: a commit happens only between records and
 * punctuations, and by then every change is in the store. The store's cache (on) turns the many
 * writes of a hot entry between two commits into one changelog record.
 *
 * <p>Processors call {@link #load()} in their {@code init} (restoration is complete by then): a task
 * that is revived after a crash calls it again and starts from what was committed.
 */
public final class LiveStore<V> {

    /** A value's layout, told when the value has been written. */
    public interface Codec<V> extends StateCodec<V> {

        /** Called after a value was written (lets values keep their own dirty flag). */
        default void persisted(V value) {
        }
    }

    /** Any number of longs (a value of one long, as older builds wrote it, reads back as one). */
    public static final Codec<long[]> LONGS = new LiveStore.Codec<>() {
        @Override
        public byte[] encode(long[] v) {
            final ByteBuffer b = ByteBuffer.allocate(8 * v.length);
            for (long x : v) {
                b.putLong(x);
            }
            return b.array();
        }

        @Override
        public long[] decode(byte[] b) {
            final ByteBuffer in = ByteBuffer.wrap(b);
            final long[] v = new long[b.length / 8];
            for (int i = 0; i < v.length; i++) {
                v[i] = in.getLong();
            }
            return v;
        }
    };

    private final ByteStore inner;
    private final Codec<V> codec;
    private final Map<String, V> live = new HashMap<>();
    private final Set<String> dirty = new HashSet<>();
    private final Set<String> removed = new HashSet<>();
    /** Keys written into the store and not deleted since: only these need a tombstone when removed. */
    private final Set<String> stored = new HashSet<>();

    public LiveStore(ByteStore inner, Codec<V> codec) {
        this.inner = inner;
        this.codec = codec;
    }

    /** Rebuilds the live objects from the restored store. */
    public void load() {
        live.clear();
        dirty.clear();
        removed.clear();
        stored.clear();
        inner.forEach((key, value) -> {
            live.put(key, codec.decode(value));
            stored.add(key);
        });
    }

    public V get(String key) {
        return live.get(key);
    }

    /** Adds or replaces an entry; written at the next {@link #writeBack}. */
    public void put(String key, V value) {
        live.put(key, value);
        dirty.add(key);
        removed.remove(key);
    }

    /** Marks an entry changed in place. */
    public void touch(String key) {
        dirty.add(key);
    }

    /**
     * Drops the pending write of an entry whose stored value still stands for what a restart must
     * know (the caller's judgement: {@link InflightRequests#finish}).
     */
    public void untouch(String key) {
        dirty.remove(key);
    }

    /** Whether the next {@link #writeBack} writes an entry. */
    public boolean pending() {
        return !dirty.isEmpty();
    }

    public void remove(String key) {
        if (live.remove(key) != null) {
            dirty.remove(key);
            removed.add(key);
        }
    }

    /** The live entries; mutate values only through {@link #touch}. */
    public Map<String, V> entries() {
        return live;
    }

    public int size() {
        return live.size();
    }

    /** Writes the entries changed since the last call into the store, and deletes the removed ones. */
    public void writeBack() {
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
    public static void writeBack(LiveStore<?>... stores) {
        for (LiveStore<?> s : stores) {
            s.writeBack();
        }
    }
}

package dev.goodput.assembly;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/** A {@link ByteStore} in memory: what tests and benchmarks run the engine over, and copy to snapshot it. */
public final class MemoryByteStore implements ByteStore {
    private final TreeMap<String, byte[]> entries = new TreeMap<>();

    @Override
    public void put(String key, byte[] value) {
        entries.put(key, value);
    }

    @Override
    public void delete(String key) {
        entries.remove(key);
    }

    @Override
    public void forEach(BiConsumer<String, byte[]> entry) {
        entries.forEach(entry);
    }

    public byte[] get(String key) {
        return entries.get(key);
    }

    public int size() {
        return entries.size();
    }

    /** A copy of the entries as they are now: a new store to restore an engine from. */
    public MemoryByteStore snapshot() {
        final MemoryByteStore copy = new MemoryByteStore();
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
            copy.entries.put(e.getKey(), Arrays.copyOf(e.getValue(), e.getValue().length));
        }
        return copy;
    }
}

package dev.goodput.assembly;

import java.util.function.BiConsumer;

/**
 * Where the engine's state lives between records: string keys, byte values. The streams-app passes
 * a changelogged Kafka Streams store; a test or a benchmark passes a {@link MemoryByteStore}. A new
 * engine over the same stores takes up exactly where the last one left (snapshot and restore).
 */
public interface ByteStore {

    void put(String key, byte[] value);

    void delete(String key);

    /** Every entry, in any order. */
    void forEach(BiConsumer<String, byte[]> entry);
}

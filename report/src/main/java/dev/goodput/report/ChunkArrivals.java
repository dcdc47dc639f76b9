package dev.goodput.report;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import dev.goodput.avro.TokenEvent;
import dev.goodput.definitions.Micros;

/**
 * The content chunks of a run's requests, read from the token topic: each chunk's arrival and token
 * count by request, in chunk order. Token events are many, so only these two numbers are kept.
 */
public final class ChunkArrivals {

    /** One chunk: when it arrived (microseconds) and how many tokens it carried. */
    record Chunk(long arrivalUs, int tokens) {
    }

    private final Map<String, TreeMap<Integer, Chunk>> byRequest = new HashMap<>();
    private final Map<String, Integer> multiToken = new HashMap<>();

    /** Adds one token event; false when it was refused as out of order with its neighbours. */
    public boolean add(TokenEvent t) {
        final TreeMap<Integer, Chunk> chunks = byRequest.computeIfAbsent(t.getRequestId(), k -> new TreeMap<>());
        final long at = Micros.of(t.getArrivalTimeUs());
        // a chunk before the one it follows (or after the one that follows it) is refused, as the
        // streams-app refuses it (chunks_out_of_order): a gap is never negative
        final Chunk before = chunks.get(t.getChunkIndex() - 1);
        final Chunk after = chunks.get(t.getChunkIndex() + 1);
        if (before != null && before.arrivalUs() > at || after != null && after.arrivalUs() < at) {
            return false;
        }
        // a chunk published twice (a producer retry) is one chunk
        if (chunks.putIfAbsent(t.getChunkIndex(), new Chunk(at, t.getTokens())) == null && t.getTokens() > 1) {
            multiToken.merge(t.getRequestId(), 1, Integer::sum);
        }
        return true;
    }

    /** A request's chunk arrivals in chunk order (empty when none were read). */
    public long[] arrivals(String requestId) {
        final TreeMap<Integer, Chunk> chunks = byRequest.get(requestId);
        return chunks == null ? new long[0] : chunks.values().stream().mapToLong(Chunk::arrivalUs).toArray();
    }

    /** A request's chunk token counts in chunk order. */
    public int[] tokens(String requestId) {
        final TreeMap<Integer, Chunk> chunks = byRequest.get(requestId);
        return chunks == null ? new int[0] : chunks.values().stream().mapToInt(Chunk::tokens).toArray();
    }

    /** How many of a request's chunks carried more than one token. */
    public int multiTokenChunks(String requestId) {
        return multiToken.getOrDefault(requestId, 0);
    }

    /** The number of requests with chunks. */
    public int requests() {
        return byRequest.size();
    }
}

package dev.goodput.assembly;

import java.nio.ByteBuffer;
import java.util.Arrays;

import dev.goodput.definitions.Definitions;
import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.Varint;
import dev.goodput.assembly.time.LogClock;

/**
 * One request being assembled from its token events and its request event. Chunks are kept by
 * chunk index, so out-of-order arrivals sort themselves and a duplicated chunk is ignored.
 */
public final class RequestState {
    /** What a free slot of the in-flight store holds ({@link InflightRequests}). */
    static final RequestState FREE = new RequestState();
    /** The first byte of a free slot's entry: a string length of -1, which no state starts with. */
    private static final byte FREE_MARK = 1;
    private static final long[] NO_CLOCKS = {LogClock.NONE, LogClock.NONE};

    /** The request's id (the store is keyed by slot, so the state carries it). */
    String id;
    /** The in-flight store's slot the state is kept under, while it is in flight (not stored). */
    String slot;
    String contractId;
    String scenarioId;
    long[] arrivals = new long[16];
    private boolean[] seen = new boolean[16];
    int seenCount;
    int duplicates;
    /** The request event, in wire format, once it has arrived (null before). */
    byte[] requestBytes;
    /**
     * The request event as the adapter decoded it when it came (not stored: after a restart it is
     * decoded again from {@link #requestBytes}), so a request that finishes on a later chunk is not
     * decoded twice. The engine never looks into it ({@link RequestRules}).
     */
    Object request;
    long completionUs = Long.MIN_VALUE;
    int expectedChunks = -1;
    /** Changed since the last commit (saves a hash-set insert per token). */
    boolean dirty;
    /** Written to its slot at least once, so the slot's stored entry is this request's (not stored). */
    boolean stored;
    /** A free slot's entry as read back (not {@link #FREE} itself, which is written). */
    private boolean freeSlot;
    /**
     * The partition's log clocks (token, request) when the entry was written, as read back: every
     * entry written carries them ({@link #codec}), so the record that writes a slot writes no clocks
     * of its own ({@link AssemblerProgress}). Not kept in memory otherwise.
     */
    long[] carriedClocks = NO_CLOCKS;
    /** Log time of the latest token event (see {@link LogClock}). */
    long lastChunkLogUs = Long.MIN_VALUE;
    /** Log time of the request event (Long.MIN_VALUE before it arrives). */
    long requestLogUs = Long.MIN_VALUE;
    /**
     * The earliest chunk arrival: the request holds the partition's watermark here until it
     * finishes, so the windows of its gaps stay open however long it streams.
     */
    long holdUs = Long.MAX_VALUE;
    /**
     * The chunks as the store holds them: (index, arrival since the chunk before) in the order they
     * were added, appended once per chunk, so writing the state after each run does not encode every
     * chunk again. Chunks are appended when the state is written ({@link #logChunks}), not as they
     * come: a request that finishes in the record that brought its last chunks leaves the store
     * without them ever being encoded.
     */
    private final ByteSink chunkLog = new ByteSink(32);
    private long lastLoggedUs;
    /** Chunk indices in the order they were added; the first {@link #logged} are in {@link #chunkLog}. */
    private int[] order = new int[16];
    private int logged;

    /** Adds a chunk; false when this chunk index was already seen (a duplicate). */
    boolean addChunk(int index, long arrivalUs) {
        return addChunk(index, arrivalUs, Long.MIN_VALUE);
    }

    /** Adds a chunk with its token event's log time; false when this chunk index was already seen (a duplicate). */
    boolean addChunk(int index, long arrivalUs, long logUs) {
        if (index >= arrivals.length) {
            final int n = Math.max(index + 1, arrivals.length * 2);
            arrivals = Arrays.copyOf(arrivals, n);
            seen = Arrays.copyOf(seen, n);
        }
        if (seen[index]) {
            duplicates++;
            return false;
        }
        seen[index] = true;
        arrivals[index] = arrivalUs;
        if (seenCount == order.length) {
            order = Arrays.copyOf(order, seenCount * 2);
        }
        order[seenCount++] = index;
        if (logUs > lastChunkLogUs) {
            lastChunkLogUs = logUs;
        }
        if (arrivalUs < holdUs) {
            holdUs = arrivalUs;
        }
        return true;
    }

    /** Appends the chunks added since the state was last written to {@link #chunkLog}. */
    private void logChunks() {
        for (; logged < seenCount; logged++) {
            final int index = order[logged];
            Varint.writeLong(chunkLog, index);
            Varint.writeLong(chunkLog, arrivals[index] - lastLoggedUs);
            lastLoggedUs = arrivals[index];
        }
    }

    /** Chunks seen (each index once). */
    public int seenCount() {
        return seenCount;
    }

    /** Log time of the request event (Long.MIN_VALUE before it arrives). */
    public long requestLogUs() {
        return requestLogUs;
    }

    /** The event time this request holds the watermark at: its earliest chunk, or its completion. */
    public long hold() {
        return requestBytes == null ? holdUs : Math.min(holdUs, completionUs);
    }

    /**
     * True when a chunk at {@code arrivalUs} would come before the chunk it follows or after the
     * chunk that follows it: its gap would be negative (chunk times are the generator's, in order).
     */
    boolean outOfOrder(int index, long arrivalUs) {
        if (index > 0 && index - 1 < seen.length && seen[index - 1] && arrivals[index - 1] > arrivalUs) {
            return true;
        }
        return index + 1 < seen.length && seen[index + 1] && arrivals[index + 1] < arrivalUs;
    }

    /** A free slot's entry ({@link #FREE}, or one read back). */
    boolean isFree() {
        return this == FREE || freeSlot;
    }

    boolean complete() {
        return requestBytes != null && seenCount >= expectedChunks;
    }

    /**
     * ITL gaps between consecutive chunk indices that both arrived, with the later chunk's time
     * (the gap belongs to that chunk's window). A missing chunk makes no gap across it: the one
     * definition, {@link Definitions#itlGaps(long[], boolean[], int)}.
     */
    public long[][] gaps() {
        return Definitions.itlGaps(arrivals, seen, Math.max(expectedChunks, highestIndex() + 1));
    }

    private int highestIndex() {
        for (int i = seen.length - 1; i >= 0; i--) {
            if (seen[i]) {
                return i;
            }
        }
        return -1;
    }

    /** The layout without clocks to carry (they are written as {@link LogClock#NONE}). */
    static final LiveStore.Codec<RequestState> CODEC = codec(NO_CLOCKS);

    /**
     * The in-flight store's layout; each entry carries {@code clocks} (token, request log clocks) as
     * they are when it is written: a free slot is {@link #FREE_MARK} then the clocks, a state its
     * fields then the clocks.
     */
    static LiveStore.Codec<RequestState> codec(long[] clocks) {
        return new LiveStore.Codec<>() {
            @Override
            public void persisted(RequestState s) {
                if (s != FREE) {
                    s.dirty = false;
                    s.stored = true;
                }
            }

            @Override
            public byte[] encode(RequestState s) {
                if (s == FREE) {
                    final ByteSink out = new ByteSink(21);
                    out.write(FREE_MARK);
                    Varint.writeLong(out, clocks[0]);
                    Varint.writeLong(out, clocks[1]);
                    return out.toByteArray();
                }
                s.logChunks();
                final ByteSink out = new ByteSink(96 + (s.requestBytes == null ? 0 : s.requestBytes.length) + s.chunkLog.size());
                Varint.writeString(out, s.id);
                Varint.writeString(out, s.contractId);
                Varint.writeString(out, s.scenarioId);
                Varint.writeLong(out, 0); // was the last activity time: its slot stays, so stored state still reads
                Varint.writeLong(out, s.duplicates);
                Varint.writeLong(out, s.completionUs);
                Varint.writeLong(out, s.expectedChunks);
                Varint.writeLong(out, s.requestBytes == null ? -1 : s.requestBytes.length);
                if (s.requestBytes != null) {
                    out.writeBytes(s.requestBytes);
                }
                Varint.writeLong(out, s.seenCount);
                out.writeBytes(s.chunkLog);
                // appended later: a state written by an older build simply lacks them
                Varint.writeLong(out, s.lastChunkLogUs);
                Varint.writeLong(out, s.requestLogUs);
                Varint.writeLong(out, clocks[0]);
                Varint.writeLong(out, clocks[1]);
                return out.toByteArray();
            }

            @Override
            public RequestState decode(byte[] bytes) {
                if (bytes.length == 0) {
                    return FREE; // written by a build whose free slots carried no clocks
                }
                final ByteBuffer in = ByteBuffer.wrap(bytes);
                final RequestState s = new RequestState();
                if (bytes[0] == FREE_MARK) {
                    in.get();
                    s.freeSlot = true;
                    s.carriedClocks = new long[] {Varint.readLong(in), Varint.readLong(in)};
                    return s;
                }
                s.id = Varint.readString(in);
                s.contractId = Varint.readString(in);
                s.scenarioId = Varint.readString(in);
                Varint.readLong(in);
                s.duplicates = (int) Varint.readLong(in);
                s.completionUs = Varint.readLong(in);
                s.expectedChunks = (int) Varint.readLong(in);
                final int rb = (int) Varint.readLong(in);
                if (rb >= 0) {
                    s.requestBytes = new byte[rb];
                    in.get(s.requestBytes);
                }
                final int n = (int) Varint.readLong(in);
                long prev = 0;
                for (int k = 0; k < n; k++) {
                    final int idx = (int) Varint.readLong(in);
                    prev += Varint.readLong(in);
                    s.addChunk(idx, prev);
                }
                if (in.hasRemaining()) {
                    s.lastChunkLogUs = Varint.readLong(in);
                    s.requestLogUs = Varint.readLong(in);
                }
                if (in.hasRemaining()) {
                    s.carriedClocks = new long[] {Varint.readLong(in), Varint.readLong(in)};
                }
                return s;
            }
        };
    }
}

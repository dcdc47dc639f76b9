package dev.goodput.streams.fast;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.goodput.avro.TokenEvent;
import dev.goodput.registry.RegistryException;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.WireFormat;
import org.apache.avro.Schema;

/**
 * Reads the few fields the per-token path needs straight from a token event's wire-format bytes,
 * without building an Avro record, for the writer schema this build was compiled with (the common
 * case). Any other writer schema, and any malformed record, is left to the full deserializer,
 * which then reports exactly what is wrong. Not thread-safe: one per processor.
 */
public final class FastTokenReader {

    private final SchemaRegistryClient registry;
    private final Map<Integer, Boolean> fastIds = new ConcurrentHashMap<>();
    /** The last schema id looked up and its answer: a topic's records nearly all carry one id. */
    private int lastId = -1;
    private boolean lastIdFast;
    private byte[] data;
    private int pos;

    public int contractOffset;
    public int contractLength;
    public int runOffset;
    public int runLength;
    public int chunkIndex;
    public long arrivalUs;
    public boolean warmup;

    public FastTokenReader(SchemaRegistryClient registry) {
        this.registry = registry;
    }

    /** Reads a record's value; false when the full deserializer must be used instead. */
    public boolean read(byte[] bytes) {
        return bytes != null && read(bytes, 0, bytes.length);
    }

    /** Reads a value held in {@code bytes[offset, offset + length)}; false as for {@link #read(byte[])}. */
    public boolean read(byte[] bytes, int offset, int length) {
        if (length < WireFormat.HEADER_SIZE || bytes[offset] != WireFormat.MAGIC_BYTE) {
            return false;
        }
        final int o = offset;
        final int id = ((bytes[o + 1] & 0xff) << 24) | ((bytes[o + 2] & 0xff) << 16) | ((bytes[o + 3] & 0xff) << 8)
                | (bytes[o + 4] & 0xff);
        if (id != lastId) {
            lastIdFast = fastIds.computeIfAbsent(id, this::isCompiledSchema);
            lastId = id;
        }
        if (!lastIdFast) {
            return false;
        }
        data = bytes;
        pos = offset + WireFormat.HEADER_SIZE;
        final int end = offset + length;
        try {
            contractLength = (int) readLong();
            contractOffset = pos;
            pos += contractLength;
            runLength = (int) readLong();
            runOffset = pos;
            pos += runLength;
            skipString();                 // scenario_id
            skipString();                 // request_id: the record key carries it
            chunkIndex = (int) readLong();
            readLong();                   // kind
            readLong();                   // tokens
            arrivalUs = readLong();
            warmup = data[pos++] != 0;
            return pos == end && contractLength >= 0 && runLength >= 0 && chunkIndex >= 0;
        } catch (ArrayIndexOutOfBoundsException e) {
            return false;
        }
    }

    /** Whether the record's contract id equals {@code id} (ASCII hex), without making a String. */
    public boolean contractIs(byte[] id) {
        return Arrays.equals(data, contractOffset, contractOffset + contractLength, id, 0, id.length);
    }

    /** Whether the record's run id equals {@code id} (UTF-8 bytes). */
    public boolean runIs(byte[] id) {
        return Arrays.equals(data, runOffset, runOffset + runLength, id, 0, id.length);
    }

    public String contractId() {
        return new String(data, contractOffset, contractLength, StandardCharsets.UTF_8);
    }

    private boolean isCompiledSchema(int id) {
        try {
            final Schema writer = registry.getById(id);
            return writer.equals(TokenEvent.getClassSchema());
        } catch (RegistryException.NotFound e) {
            return false;
        }
    }

    private void skipString() {
        final int n = (int) readLong();
        if (n < 0) {
            throw new ArrayIndexOutOfBoundsException("negative length");
        }
        pos += n;
    }

    private long readLong() {
        long z = 0;
        int shift = 0;
        while (true) {
            final byte b = data[pos++];
            z |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
            if (shift > 63) {
                throw new ArrayIndexOutOfBoundsException("varint too long");
            }
        }
        return (z >>> 1) ^ -(z & 1);
    }
}

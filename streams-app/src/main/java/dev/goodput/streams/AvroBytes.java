package dev.goodput.streams;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import dev.goodput.definitions.Micros;
import dev.goodput.registry.RegistryException;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.bytes.Varint;
import dev.goodput.serde.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * A record in Confluent's wire format read by Avro's binary encoding (a published specification),
 * when its writer schema has one given layout (a Parsing Canonical Form fingerprint): what
 * {@link RunReader} and {@link RequestReader} share. A value that is not what the layout says makes a
 * read throw {@link IllegalArgumentException} or {@link java.nio.BufferUnderflowException}; the readers
 * then hand the record to Avro's resolving deserializer, which reads it or names the reason. Not
 * thread-safe: one per reader.
 */
final class AvroBytes {
    private final SchemaRegistryClient registry;
    private final long layout;
    private final Map<Integer, Boolean> sameLayout = new HashMap<>();
    /** The last schema id looked up and its answer: a topic's records nearly all carry one id. */
    private int lastId = -1;
    private boolean lastSame;
    private ByteBuffer in;

    AvroBytes(SchemaRegistryClient registry, long layout) {
        this.registry = registry;
        this.layout = layout;
    }

    /** Positions on {@code value}'s body when it is in the wire format with a writer schema of the layout. */
    boolean open(byte[] value) {
        if (value == null || value.length < WireFormat.HEADER_SIZE || value[0] != WireFormat.MAGIC_BYTE) {
            return false;
        }
        final int id = WireFormat.readSchemaId("", value); // header checked above: cannot throw
        if (id != lastId) {
            Boolean same = sameLayout.get(id);
            if (same == null) {
                same = lookUp(id);
                if (same == null) {
                    return false;
                }
                sameLayout.put(id, same);
            }
            lastSame = same;
            lastId = id;
        }
        if (!lastSame) {
            return false;
        }
        in = ByteBuffer.wrap(value, WireFormat.HEADER_SIZE, value.length - WireFormat.HEADER_SIZE);
        return true;
    }

    /** Whether every byte of the value was read; the value is let go either way. */
    boolean close() {
        final boolean all = in != null && !in.hasRemaining();
        in = null;
        return all;
    }

    /** Whether schema {@code id} has the layout; null when the registry cannot say now (not remembered). */
    private Boolean lookUp(int id) {
        try {
            final Schema writer = registry.getById(id);
            return SchemaNormalization.parsingFingerprint64(writer) == layout;
        } catch (RegistryException.NotFound e) {
            return false;
        } catch (RuntimeException e) {
            return null;
        }
    }

    long readLong() {
        return Varint.readLong(in);
    }

    int readInt() {
        final long v = readLong();
        if (v != (int) v) {
            throw new IllegalArgumentException("int out of range: " + v);
        }
        return (int) v;
    }

    boolean readBoolean() {
        final byte b = in.get();
        if (b != 0 && b != 1) {
            throw new IllegalArgumentException("boolean byte " + b);
        }
        return b == 1;
    }

    double readDouble() {
        return Double.longBitsToDouble(Long.reverseBytes(in.getLong()));
    }

    Instant readInstant() {
        return Micros.toInstant(readLong());
    }

    /** An enum symbol's or a union branch's index, checked against their number. */
    int readIndex(int count) {
        final long i = readLong();
        if (i < 0 || i >= count) {
            throw new IllegalArgumentException("index " + i + " of " + count);
        }
        return (int) i;
    }

    /** A union of null and one branch, in that order: true when the branch follows. */
    boolean present() {
        return readIndex(2) == 1;
    }

    String readString() {
        final int n = length();
        final String s = new String(in.array(), in.arrayOffset() + in.position(), n, StandardCharsets.UTF_8);
        in.position(in.position() + n);
        return s;
    }

    void skipString() {
        final int n = length(); // read before the position is taken
        in.position(in.position() + n);
    }

    /** A string's length, checked against what is left (a bad one is not this reader's to judge). */
    private int length() {
        final long n = readLong();
        if (n < 0 || n > in.remaining()) {
            throw new IllegalArgumentException("string length " + n);
        }
        return (int) n;
    }

    /**
     * A string field whose value mostly repeats from record to record (contract, run and scenario
     * ids): the last value's String is given again when the bytes are the same, so no String is made
     * per record.
     */
    static final class Text {
        private byte[] last = new byte[0];
        private String lastText = "";

        String read(AvroBytes b) {
            final int n = b.length();
            final byte[] data = b.in.array();
            final int from = b.in.arrayOffset() + b.in.position();
            b.in.position(b.in.position() + n);
            if (!Arrays.equals(data, from, from + n, last, 0, last.length)) {
                last = Arrays.copyOfRange(data, from, from + n);
                lastText = new String(last, StandardCharsets.UTF_8);
            }
            return lastText;
        }
    }
}

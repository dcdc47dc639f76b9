package dev.goodput.streams;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.TokenEvent;
import dev.goodput.registry.RegistryException;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.Varint;
import dev.goodput.serde.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * Reads a token event's run straight from its wire-format bytes into a {@link TokenInput}, when its
 * writer schema has this build's binary layout (the same Parsing Canonical Form as {@link TokenEvent}'s
 * schema: what this project's producers register). Avro's resolving reader builds an object per
 * chunk and an {@code Instant} per arrival time; here a run's chunks go into two arrays. Any other
 * writer schema, and any record this reader cannot read to its last byte, is left to the resolving
 * deserializer, which reads it or says exactly why it cannot. Avro's binary encoding is a published
 * specification, so nothing here depends on Avro's own classes beyond the schema. Not thread-safe:
 * one per processor.
 */
final class RunReader {

    private static final long LAYOUT = SchemaNormalization.parsingFingerprint64(TokenEvent.getClassSchema());
    private static final int KINDS = ChunkKind.values().length;

    private final SchemaRegistryClient registry;
    private final Map<Integer, Boolean> sameLayout = new HashMap<>();
    /** The last schema id looked up and its answer: a topic's records nearly all carry one id. */
    private int lastId = -1;
    private boolean lastSame;
    private final Text contract = new Text();
    private final Text run = new Text();
    private final Text scenario = new Text();
    private ByteBuffer in;

    RunReader(SchemaRegistryClient registry) {
        this.registry = registry;
    }

    /** Reads {@code value} into {@code into}; false when the resolving deserializer must read it instead. */
    boolean read(byte[] value, TokenInput into) {
        if (value == null || value.length < WireFormat.HEADER_SIZE || value[0] != WireFormat.MAGIC_BYTE) {
            return false;
        }
        final int id = WireFormat.readSchemaId("", value); // header checked above: cannot throw
        if (id != lastId) {
            final Boolean same = sameLayout.get(id);
            if (same == null) {
                final Boolean known = lookUp(id);
                if (known == null) {
                    return false;
                }
                sameLayout.put(id, known);
                lastSame = known;
            } else {
                lastSame = same;
            }
            lastId = id;
        }
        if (!lastSame) {
            return false;
        }
        in = ByteBuffer.wrap(value, WireFormat.HEADER_SIZE, value.length - WireFormat.HEADER_SIZE);
        try {
            final String contractId = contract.read(this);
            final String runId = run.read(this);
            final String scenarioId = scenario.read(this);
            skipString(); // request_id: the record key carries it
            final int first = readInt();
            readKind(); // the join reads neither kind nor tokens, but a record the resolving reader refuses is declined
            readInt(); // tokens
            final long firstArrival = readLong();
            final boolean warmup = readBoolean();
            into.begin(contractId, runId, scenarioId, warmup);
            into.add(first, firstArrival);
            // an array comes in blocks: a count, then that many items; a negative count is followed by the block's size in bytes
            for (long count = readLong(); count != 0; count = readLong()) {
                if (count < 0) {
                    count = -count;
                    readLong();
                }
                for (long k = 0; k < count; k++) {
                    final int index = readInt();
                    readKind();
                    readInt(); // tokens
                    into.add(index, readLong());
                }
            }
            return !in.hasRemaining();
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            return false; // the resolving deserializer says what is wrong with it
        } finally {
            in = null;
        }
    }

    /** Whether schema {@code id} has this build's layout; null when the registry cannot say now (not remembered). */
    private Boolean lookUp(int id) {
        try {
            final Schema writer = registry.getById(id);
            return SchemaNormalization.parsingFingerprint64(writer) == LAYOUT;
        } catch (RegistryException.NotFound e) {
            return false;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private long readLong() {
        return Varint.readLong(in);
    }

    private void skipString() {
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

    private boolean readBoolean() {
        final byte b = in.get();
        if (b != 0 && b != 1) {
            throw new IllegalArgumentException("boolean byte " + b);
        }
        return b == 1;
    }

    private int readInt() {
        final long v = readLong();
        if (v != (int) v) {
            throw new IllegalArgumentException("int out of range: " + v);
        }
        return (int) v;
    }

    private void readKind() {
        final long k = readLong();
        if (k < 0 || k >= KINDS) {
            throw new IllegalArgumentException("chunk kind " + k);
        }
    }

    /**
     * A string field whose value mostly repeats from run to run (contract, run and scenario ids): the
     * last value's String is given again when the bytes are the same, so no String is made per run.
     */
    private static final class Text {
        private byte[] last = new byte[0];
        private String lastText = "";

        String read(RunReader r) {
            final int n = r.length();
            final byte[] data = r.in.array();
            final int from = r.in.arrayOffset() + r.in.position();
            r.in.position(r.in.position() + n);
            if (!Arrays.equals(data, from, from + n, last, 0, last.length)) {
                last = Arrays.copyOfRange(data, from, from + n);
                lastText = new String(last, StandardCharsets.UTF_8);
            }
            return lastText;
        }
    }
}

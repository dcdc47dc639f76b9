package dev.goodput.streams;

import java.nio.BufferUnderflowException;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.TokenEvent;
import dev.goodput.registry.SchemaRegistryClient;
import org.apache.avro.SchemaNormalization;

/**
 * Reads a token event's run straight from its wire-format bytes into a {@link TokenInput}, when its
 * writer schema has this build's binary layout (the same Parsing Canonical Form as {@link TokenEvent}'s
 * schema: what this project's producers register). Avro's resolving reader builds an object per
 * chunk and an {@code Instant} per arrival time; here a run's chunks go into two arrays. Any other
 * writer schema, and any record this reader cannot read to its last byte, is left to the resolving
 * deserializer, which reads it or says exactly why it cannot ({@link AvroBytes}). Not thread-safe:
 * one per processor.
 */
final class RunReader {

    /**
     * The Parsing Canonical Form fingerprint of the schema whose fields {@link #read} reads, in order.
     * Pinned, not taken from {@link TokenEvent}: a schema change must fail {@code RunReaderTest} (and the
     * build) until this reader follows it, never let this reader misread the new layout; meanwhile
     * every run goes to the resolving deserializer.
     */
    static final long LAYOUT = -5_966_821_068_787_862_688L;
    private static final int KINDS = ChunkKind.values().length;

    private final AvroBytes b;
    private final boolean inPlace;
    private final AvroBytes.Text contract = new AvroBytes.Text();
    private final AvroBytes.Text run = new AvroBytes.Text();
    private final AvroBytes.Text scenario = new AvroBytes.Text();

    RunReader(SchemaRegistryClient registry) {
        this.b = new AvroBytes(registry, LAYOUT);
        this.inPlace = SchemaNormalization.parsingFingerprint64(TokenEvent.getClassSchema()) == LAYOUT;
    }

    /** Whether runs are read here at all (the schema has the layout this reads). */
    boolean inPlace() {
        return inPlace;
    }

    /** Reads {@code value} into {@code into}; false when the resolving deserializer must read it instead. */
    boolean read(byte[] value, TokenInput into) {
        if (!inPlace || !b.open(value)) {
            return false;
        }
        boolean read = false;
        try {
            final String contractId = contract.read(b);
            final String runId = run.read(b);
            final String scenarioId = scenario.read(b);
            b.skipString(); // request_id: the record key carries it
            final int first = b.readInt();
            b.readIndex(KINDS); // the join reads neither kind nor tokens, but a record the resolving reader refuses is declined
            b.readInt(); // tokens
            final long firstArrival = b.readLong();
            final boolean warmup = b.readBoolean();
            into.begin(contractId, runId, scenarioId, warmup);
            into.add(first, firstArrival);
            // an array comes in blocks: a count, then that many items; a negative count is followed by the block's size in bytes
            for (long count = b.readLong(); count != 0; count = b.readLong()) {
                if (count < 0) {
                    count = -count;
                    b.readLong();
                }
                for (long k = 0; k < count; k++) {
                    final int index = b.readInt();
                    b.readIndex(KINDS);
                    b.readInt(); // tokens
                    into.add(index, b.readLong());
                }
            }
            read = true;
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            // the resolving deserializer says what is wrong with it
        } finally {
            read = b.close() && read;
        }
        return read;
    }
}

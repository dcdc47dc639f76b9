package dev.goodput.streams;

import java.nio.BufferUnderflowException;
import java.time.Instant;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.ServerTimings;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.registry.SchemaRegistryClient;
import org.apache.avro.SchemaNormalization;

/**
 * Reads a request event straight from its wire-format bytes, field by field in the order of the
 * layout it is written for ({@link #LAYOUT}), when the record's writer schema has that layout (what
 * this project's producers register). Avro's resolving reader walked the schema, its unions and its
 * logical-type conversions for every request (8 % of the stream thread at 50 chunks a request). Any
 * other writer schema, any record this cannot read to its last byte, and every request event when
 * {@link RequestEvent}'s schema is no longer of that layout, go to the resolving deserializer, which
 * reads them or names the reason. {@code RequestReaderTest} reads random events both ways. Not
 * thread-safe: one per processor.
 */
final class RequestReader {

    /** The Parsing Canonical Form fingerprint of the schema whose fields {@link #read} reads, in order. */
    static final long LAYOUT = 870_339_440_328_733_698L;

    private static final TokenCountSource[] SOURCES = TokenCountSource.values();
    private static final RequestStatus[] STATUSES = RequestStatus.values();

    private final AvroBytes b;
    private final boolean inPlace;
    private final AvroBytes.Text contract = new AvroBytes.Text();
    private final AvroBytes.Text run = new AvroBytes.Text();
    private final AvroBytes.Text scenario = new AvroBytes.Text();
    private final AvroBytes.Text target = new AvroBytes.Text();
    private final AvroBytes.Text gpu = new AvroBytes.Text();

    RequestReader(SchemaRegistryClient registry) {
        this.b = new AvroBytes(registry, LAYOUT);
        this.inPlace = SchemaNormalization.parsingFingerprint64(RequestEvent.getClassSchema()) == LAYOUT;
    }

    /** Whether events are read here at all (the schema has the layout this reads). */
    boolean inPlace() {
        return inPlace;
    }

    /** The event {@code value} holds, or null when the resolving deserializer must read it. */
    RequestEvent read(byte[] value) {
        if (!inPlace || !b.open(value)) {
            return null;
        }
        RequestEvent e = null;
        try {
            // the constructor takes the fields in the schema's order, and Java evaluates arguments left to right
            e = new RequestEvent(contract.read(b), run.read(b), scenario.read(b), target.read(b), gpu.read(b), b.readInt(),
                    b.readString(), b.readInt(), b.readInstant(), b.readInstant(), instant(), instant(), instant(),
                    b.readInstant(), b.readInt(), b.readInt(), SOURCES[b.readIndex(SOURCES.length)], b.readInt(),
                    STATUSES[b.readIndex(STATUSES.length)], string(), string(), integer(), real(), bool(), b.readBoolean(),
                    instant(), instant(), string(), integer(), integer(), bool(), integer(), integer(), string(), timings(),
                    integer(), string(), integer());
        } catch (BufferUnderflowException | IllegalArgumentException ex) {
            e = null; // the resolving deserializer says what is wrong with it
        } finally {
            if (!b.close()) {
                e = null;
            }
        }
        return e;
    }

    private Instant instant() {
        return b.present() ? b.readInstant() : null;
    }

    private String string() {
        return b.present() ? b.readString() : null;
    }

    private Integer integer() {
        return b.present() ? b.readInt() : null;
    }

    private Double real() {
        return b.present() ? b.readDouble() : null;
    }

    private Boolean bool() {
        return b.present() ? b.readBoolean() : null;
    }

    private ServerTimings timings() {
        return b.present() ? new ServerTimings(b.readInt(), b.readDouble(), b.readInt(), b.readDouble(), integer(), real()) : null;
    }
}

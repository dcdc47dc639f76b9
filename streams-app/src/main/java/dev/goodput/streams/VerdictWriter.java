package dev.goodput.streams;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import dev.goodput.avro.RequestVerdict;
import dev.goodput.definitions.Micros;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.Varint;
import dev.goodput.serde.WireFormat;
import org.apache.avro.SchemaNormalization;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes a verdict (one per request, the streams-app's largest output) in the wire format straight
 * from its fields, by Avro's published binary encoding, where Avro's specific writer walks the
 * schema and its unions for every record. The bytes are Avro's own ({@code VerdictWriterTest} compares
 * them on random verdicts); the schema is registered exactly as {@link AvroSerializer} registers it.
 * Bound to one layout of {@link RequestVerdict}: if the generated class's schema is not the one
 * written here ({@link #LAYOUT}), every verdict goes through {@link AvroSerializer}. Thread-safe.
 */
final class VerdictWriter implements Serializer<RequestVerdict> {

    /** The Parsing Canonical Form fingerprint of the schema whose fields {@link #body} writes, in order. */
    static final long LAYOUT = 1_432_513_694_428_372_965L;

    private final SchemaRegistryClient registry;
    private final AvroSerializer<RequestVerdict> avro;
    private final boolean inPlace;
    private final Map<String, Integer> idByTopic = new ConcurrentHashMap<>();

    VerdictWriter(SchemaRegistryClient registry) {
        this(registry, SchemaNormalization.parsingFingerprint64(RequestVerdict.getClassSchema()) == LAYOUT);
    }

    VerdictWriter(SchemaRegistryClient registry, boolean inPlace) {
        this.registry = registry;
        this.avro = new AvroSerializer<>(registry, false);
        this.inPlace = inPlace;
    }

    /** Whether verdicts are written here (false: the schema changed and Avro's writer writes them). */
    boolean inPlace() {
        return inPlace;
    }

    @Override
    public byte[] serialize(String topic, RequestVerdict v) {
        if (v == null || !inPlace) {
            return avro.serialize(topic, v);
        }
        final int id = idByTopic.computeIfAbsent(topic,
                t -> registry.register(AvroSerializer.subject(t, false), RequestVerdict.getClassSchema()));
        final ByteSink out = new ByteSink(192);
        for (int i = 0; i < WireFormat.HEADER_SIZE; i++) {
            out.write(0);
        }
        try {
            body(v, out);
        } catch (RuntimeException e) {
            return avro.serialize(topic, v); // a field Avro would refuse (a null where none may be): its error, by name
        }
        final byte[] bytes = out.toByteArray();
        WireFormat.writeHeader(bytes, id);
        return bytes;
    }

    /** The record's fields in schema order: Avro's binary encoding of each. */
    private static void body(RequestVerdict v, ByteSink out) {
        string(out, v.getContractId());
        string(out, v.getRunId());
        string(out, v.getScenarioId());
        string(out, v.getRequestId());
        Varint.writeLong(out, Micros.of(v.getCompletionTimeUs()));
        Varint.writeLong(out, v.getStatus().ordinal());
        optionalString(out, v.getErrorClass());
        optionalLong(out, v.getTtftUs());
        optionalLong(out, v.getTtfatUs());
        optionalLong(out, v.getE2eUs());
        if (v.getTpotUs() == null) {
            Varint.writeLong(out, 0);
        } else {
            Varint.writeLong(out, 1);
            final long bits = Double.doubleToRawLongBits(v.getTpotUs());
            for (int shift = 0; shift < 64; shift += 8) {
                out.write((int) (bits >>> shift)); // little-endian, as Avro writes a double
            }
        }
        Varint.writeLong(out, v.getDispatchLatenessUs());
        Varint.writeLong(out, v.getOutputTokens());
        out.write(v.getSloPass() ? 1 : 0);
        final List<String> failed = v.getFailedObjectives();
        if (!failed.isEmpty()) {
            Varint.writeLong(out, failed.size()); // one block, then the empty block that ends the array
            for (String f : failed) {
                string(out, f);
            }
        }
        Varint.writeLong(out, 0);
        out.write(v.getQualityPass() ? 1 : 0);
        out.write(v.getGood() ? 1 : 0);
        optionalString(out, v.getTargetId());
        if (v.getPromptTokens() == null) {
            Varint.writeLong(out, 0);
        } else {
            Varint.writeLong(out, 1);
            Varint.writeLong(out, v.getPromptTokens());
        }
        optionalString(out, v.getOperation());
    }

    /** An Avro string is the project's varint-prefixed UTF-8; a null, which Avro refuses here, goes to Avro's writer. */
    private static void string(ByteSink out, String s) {
        Varint.writeString(out, Objects.requireNonNull(s));
    }

    /** A ["null", "string"] union: the branch, then the string. */
    private static void optionalString(ByteSink out, String s) {
        if (s == null) {
            Varint.writeLong(out, 0);
        } else {
            Varint.writeLong(out, 1);
            string(out, s);
        }
    }

    /** A ["null", "long"] union. */
    private static void optionalLong(ByteSink out, Long v) {
        if (v == null) {
            Varint.writeLong(out, 0);
        } else {
            Varint.writeLong(out, 1);
            Varint.writeLong(out, v);
        }
    }
}

package dev.goodput.serde;

import java.io.EOFException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.goodput.registry.RegistryException;
import dev.goodput.registry.SchemaRegistryClient;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads Confluent wire-format Avro records into a specific record class, resolving each writer
 * schema (fetched once by id from the registry) against the class's schema, as Avro schema
 * evolution allows. Bad bytes raise a {@link WireFormatException} with the reason; an unreachable
 * registry raises {@link RegistryException} (a transient fault, not a bad record). Thread-safe.
 */
public final class AvroDeserializer<T extends SpecificRecord> implements Deserializer<T> {

    private final SchemaRegistryClient registry;
    private final Schema readerSchema;
    private final Map<Integer, SpecificDatumReader<T>> readers = new ConcurrentHashMap<>();

    public AvroDeserializer(SchemaRegistryClient registry, Class<T> type) {
        AvroTrust.ensure();
        this.registry = registry;
        this.readerSchema = SpecificData.get().getSchema(type);
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        final int id = WireFormat.readSchemaId(topic, data);
        final SpecificDatumReader<T> reader = readerFor(topic, id);
        final BinaryDecoder decoder = DecoderFactory.get()
                .binaryDecoder(data, WireFormat.HEADER_SIZE, data.length - WireFormat.HEADER_SIZE, null);
        try {
            final T value = reader.read(null, decoder);
            if (!decoder.isEnd()) {
                throw new WireFormatException(WireFormatException.Reason.UNREADABLE, topic,
                        "trailing bytes after a " + readerSchema.getName() + " written with schema id " + id, null);
            }
            return value;
        } catch (EOFException e) {
            throw new WireFormatException(WireFormatException.Reason.TRUNCATED, topic,
                    "Avro body ended early (" + data.length + " bytes, schema id " + id + ")", e);
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new WireFormatException(WireFormatException.Reason.UNREADABLE, topic,
                    "corrupt Avro body for schema id " + id + ": " + e, e);
        }
    }

    private SpecificDatumReader<T> readerFor(String topic, int id) {
        final SpecificDatumReader<T> cached = readers.get(id);
        if (cached != null) {
            return cached;
        }
        final Schema writer;
        try {
            writer = registry.getById(id);
        } catch (RegistryException.NotFound e) {
            throw new WireFormatException(WireFormatException.Reason.UNKNOWN_SCHEMA_ID, topic,
                    "schema id " + id + " is not known to the registry at " + registry.baseUrl(), e);
        }
        final SpecificDatumReader<T> reader = new SpecificDatumReader<>(writer, readerSchema);
        // Checking eagerly turns an incompatible writer into a clear error instead of garbage.
        final SchemaCompatibility.SchemaPairCompatibility compat =
                SchemaCompatibility.checkReaderWriterCompatibility(readerSchema, writer);
        if (compat.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
            throw new WireFormatException(WireFormatException.Reason.INCOMPATIBLE_SCHEMA, topic,
                    "writer schema " + id + " cannot be read as " + readerSchema.getFullName() + ": "
                            + compat.getDescription(), null);
        }
        readers.putIfAbsent(id, reader);
        return reader;
    }
}

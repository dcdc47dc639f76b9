package dev.goodput.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.goodput.registry.SchemaRegistryClient;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Serializes Avro specific records in Confluent's wire format, registering the writer schema under
 * the TopicNameStrategy subject ({@code <topic>-value} or {@code <topic>-key}) on first use per
 * topic. Thread-safe; the per-record path does no registry call and no map allocation.
 */
public final class AvroSerializer<T extends SpecificRecord> implements Serializer<T> {

    private final SchemaRegistryClient registry;
    private final boolean isKey;
    private final Map<String, Integer> idByTopic = new ConcurrentHashMap<>();
    private final Map<Schema, SpecificDatumWriter<T>> writers = new ConcurrentHashMap<>();
    private final ThreadLocal<Buffers> buffers = ThreadLocal.withInitial(Buffers::new);

    public AvroSerializer(SchemaRegistryClient registry, boolean isKey) {
        this.registry = registry;
        this.isKey = isKey;
    }

    /** TopicNameStrategy: the subject a topic's keys or values are registered under. */
    public static String subject(String topic, boolean isKey) {
        return topic + (isKey ? "-key" : "-value");
    }

    @Override
    public byte[] serialize(String topic, T data) {
        if (data == null) {
            return null;
        }
        final Schema schema = data.getSchema();
        final int id = idByTopic.computeIfAbsent(topic, t -> registry.register(subject(t, isKey), schema));
        final Buffers b = buffers.get();
        b.out.reset();
        b.out.write(WireFormat.MAGIC_BYTE);
        b.out.write(id >>> 24);
        b.out.write(id >>> 16);
        b.out.write(id >>> 8);
        b.out.write(id);
        b.encoder = EncoderFactory.get().directBinaryEncoder(b.out, b.encoder);
        try {
            writers.computeIfAbsent(schema, SpecificDatumWriter::new).write(data, b.encoder);
            b.encoder.flush();
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot encode a " + schema.getFullName() + " for topic " + topic
                    + ": " + e.getMessage(), e);
        }
        return b.out.toByteArray();
    }

    private static final class Buffers {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        BinaryEncoder encoder;
    }
}

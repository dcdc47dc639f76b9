package dev.goodput.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.TokenEvent;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.testing.SampleRecords;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every schema round-trips through the registry's HTTP API and the wire-format serde; bad bytes are typed errors. */
class WireFormatRoundTripTest {

    private static InProcessSchemaRegistry registry;
    private static SchemaRegistryClient client;

    @BeforeAll
    static void start() {
        registry = InProcessSchemaRegistry.inMemory(0);
        client = new SchemaRegistryClient(registry.url());
    }

    @AfterAll
    static void stop() {
        registry.close();
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void everySchemaRoundTrips() {
        for (SpecificRecord record : SampleRecords.all()) {
            final String topic = "rt." + record.getSchema().getName();
            final byte[] bytes = new AvroSerializer<>(client, false).serialize(topic, record);
            assertThat(bytes[0]).isEqualTo(WireFormat.MAGIC_BYTE);
            final int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
            // the id in the header is the one registered under the TopicNameStrategy subject
            assertThat(new SchemaRegistryClient(registry.url()).version(topic + "-value", "latest").id()).isEqualTo(id);
            final SpecificRecord back = (SpecificRecord) new AvroDeserializer(client, record.getClass())
                    .deserialize(topic, bytes);
            assertThat(back).as(record.getSchema().getName()).isEqualTo(record);
        }
    }

    @Test
    void keysRegisterUnderTheKeySubject() {
        new AvroSerializer<TokenEvent>(client, true).serialize("keyed", SampleRecords.token());
        assertThat(client.subjects()).contains("keyed-key");
    }

    @Test
    void readsAnOlderWriterSchemaThroughEvolution() {
        // A writer that lacks the 'warmup' field (added with a default) is still readable.
        final Schema current = TokenEvent.getClassSchema();
        final Schema old = Schema.createRecord(current.getName(), current.getDoc(), current.getNamespace(), false,
                current.getFields().stream().filter(f -> !f.name().equals("warmup"))
                        .map(f -> new Schema.Field(f, f.schema())).toList());
        assertThat(old.getField("warmup")).isNull();
        final int oldId = client.register("evolve-value", old);
        final GenericRecord r = new GenericData.Record(old);
        final TokenEvent t = SampleRecords.token();
        for (Schema.Field f : old.getFields()) {
            r.put(f.name(), t.get(f.name()));
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final byte[] header = new byte[WireFormat.HEADER_SIZE];
        WireFormat.writeHeader(header, oldId);
        out.writeBytes(header);
        try {
            final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
            new SpecificDatumWriter<>(old).write(r, enc);
            enc.flush();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        final TokenEvent back = new AvroDeserializer<>(client, TokenEvent.class).deserialize("evolve", out.toByteArray());
        assertThat(back.getRequestId()).isEqualTo(t.getRequestId());
        assertThat(back.getWarmup()).isFalse();
    }

    @Test
    void wrongMagicByteIsATypedError() {
        final byte[] bytes = new AvroSerializer<TokenEvent>(client, false).serialize("bad", SampleRecords.token());
        bytes[0] = 1;
        assertThatThrownBy(() -> new AvroDeserializer<>(client, TokenEvent.class).deserialize("bad", bytes))
                .isInstanceOfSatisfying(WireFormatException.class, e -> {
                    assertThat(e.reason()).isEqualTo(WireFormatException.Reason.BAD_MAGIC);
                    assertThat(e.topic()).isEqualTo("bad");
                    assertThat(e.at(3, 17L).partition()).isEqualTo(3);
                    assertThat(e.at(3, 17L).offset()).isEqualTo(17L);
                });
    }

    @Test
    void unknownSchemaIdIsATypedError() {
        final byte[] bytes = new AvroSerializer<TokenEvent>(client, false).serialize("bad", SampleRecords.token());
        ByteBuffer.wrap(bytes, 1, 4).putInt(987_654);
        assertThatThrownBy(() -> new AvroDeserializer<>(client, TokenEvent.class).deserialize("bad", bytes))
                .isInstanceOfSatisfying(WireFormatException.class,
                        e -> assertThat(e.reason()).isEqualTo(WireFormatException.Reason.UNKNOWN_SCHEMA_ID));
    }

    @Test
    void truncatedBytesAreATypedError() {
        final byte[] bytes = new AvroSerializer<RequestEvent>(client, false).serialize("bad-req", SampleRecords.request());
        for (int len : new int[] {0, 3, 5, bytes.length / 2, bytes.length - 1}) {
            final byte[] cut = Arrays.copyOf(bytes, len);
            assertThatThrownBy(() -> new AvroDeserializer<>(client, RequestEvent.class).deserialize("bad-req", cut))
                    .as("length %d", len)
                    .isInstanceOfSatisfying(WireFormatException.class,
                            e -> assertThat(e.reason()).isIn(WireFormatException.Reason.TRUNCATED,
                                    WireFormatException.Reason.UNREADABLE));
        }
    }

    @Test
    void writerOfAnotherTypeIsATypedError() {
        final byte[] bytes = new AvroSerializer<RequestEvent>(client, false).serialize("mixed", SampleRecords.request());
        assertThatThrownBy(() -> new AvroDeserializer<>(client, TokenEvent.class).deserialize("mixed", bytes))
                .isInstanceOfSatisfying(WireFormatException.class,
                        e -> assertThat(e.reason()).isEqualTo(WireFormatException.Reason.INCOMPATIBLE_SCHEMA));
    }
}

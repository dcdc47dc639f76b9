package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;

import dev.goodput.avro.RequestEvent;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.serde.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.SchemaNormalization;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A request event read in place equals what Avro's resolving reader decodes from the same bytes, for
 * events filled field by field from the schema; a record of another writer schema, or one not read to
 * its last byte, is declined (the resolving reader then reads it or says why not).
 */
class RequestReaderTest {
    private static final String TOPIC = "llm.requests";
    @RegisterExtension
    static final RegistryExtension REGISTRY = new RegistryExtension();

    @Test
    void readsWhatAvrosReaderReadsForEveryKindOfEvent() {
        assertThat(SchemaNormalization.parsingFingerprint64(RequestEvent.getClassSchema()))
                .as("RequestReader reads the layout of fingerprint LAYOUT; the schema changed: update the reader and LAYOUT")
                .isEqualTo(RequestReader.LAYOUT);
        final RequestReader reader = new RequestReader(REGISTRY.client());
        assertThat(reader.inPlace()).isTrue();
        final AvroSerializer<RequestEvent> writer = new AvroSerializer<>(REGISTRY.client(), false);
        final AvroDeserializer<RequestEvent> avro = new AvroDeserializer<>(REGISTRY.client(), RequestEvent.class);
        final Random random = new Random(11);
        for (int i = 0; i < 3_000; i++) {
            final byte[] bytes = writer.serialize(TOPIC, RandomRecords.fill(new RequestEvent(), random));
            final RequestEvent expected = avro.deserialize(TOPIC, bytes);
            final RequestEvent got = reader.read(bytes);
            // Avro's own equals fails on a NaN inside a nested record (two decodings of one event
            // differ): the event read in place is compared as Avro writes it, and as it prints
            assertThat(got).as("event %d", i).isNotNull();
            assertThat(writer.serialize(TOPIC, got)).as("event %d: %s", i, expected).containsExactly(bytes);
            assertThat(got).hasToString(expected.toString());
        }
    }

    @Test
    void declinesWhatItCannotReadToTheLastByteAndOtherLayouts() {
        final RequestReader reader = new RequestReader(REGISTRY.client());
        final byte[] bytes = new AvroSerializer<RequestEvent>(REGISTRY.client(), false)
                .serialize(TOPIC, RandomRecords.fill(new RequestEvent(), new Random(3)));
        assertThat(reader.read(bytes)).isNotNull();
        assertThat(reader.read(Arrays.copyOf(bytes, bytes.length - 1))).isNull();
        assertThat(reader.read(Arrays.copyOf(bytes, bytes.length + 1))).isNull();
        assertThat(reader.read(new byte[] {1, 2, 3})).isNull();
        assertThat(reader.read(null)).isNull();
        // the same bytes under a writer schema of another layout
        final Schema other = SchemaBuilder.record("RequestEvent").namespace("dev.goodput.avro").fields()
                .requiredString("contract_id").endRecord();
        final int otherId = REGISTRY.client().register("other-value", other);
        final byte[] relabelled = bytes.clone();
        WireFormat.writeHeader(relabelled, otherId);
        assertThat(reader.read(relabelled)).isNull();
        assertThat(reader.read(bytes)).isNotNull();
    }
}

package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;

import dev.goodput.avro.RequestVerdict;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A verdict written from its fields is, byte for byte, what Avro's specific writer makes of it. The
 * verdicts are filled field by field from the schema itself, so a field added to the schema gets
 * values here too, and the writer either writes it or (its layout changed) hands every verdict to Avro.
 */
class VerdictWriterTest {
    private static final String TOPIC = "llm.verdicts";
    @RegisterExtension
    static final RegistryExtension REGISTRY = new RegistryExtension();

    @Test
    void writesWhatAvrosWriterWritesForEveryKindOfVerdict() {
        final VerdictWriter fast = new VerdictWriter(REGISTRY.client());
        assertThat(fast.inPlace()).as("the writer is bound to this build's verdict schema; update it with the schema").isTrue();
        final AvroSerializer<RequestVerdict> avro = new AvroSerializer<>(REGISTRY.client(), false);
        final AvroDeserializer<RequestVerdict> reader = new AvroDeserializer<>(REGISTRY.client(), RequestVerdict.class);
        final Random random = new Random(5);
        for (int i = 0; i < 3_000; i++) {
            final RequestVerdict v = randomVerdict(random);
            final byte[] expected = avro.serialize(TOPIC, v);
            assertThat(fast.serialize(TOPIC, v)).as("verdict %d: %s", i, v).containsExactly(expected);
            assertThat(reader.deserialize(TOPIC, expected)).isEqualTo(v);
        }
        assertThat(fast.serialize(TOPIC, null)).isNull();
    }

    @Test
    void anotherLayoutGoesThroughAvrosWriter() {
        final VerdictWriter other = new VerdictWriter(REGISTRY.client(), false);
        final RequestVerdict v = randomVerdict(new Random(1));
        assertThat(other.inPlace()).isFalse();
        assertThat(other.serialize(TOPIC, v)).containsExactly(new AvroSerializer<RequestVerdict>(REGISTRY.client(), false).serialize(TOPIC, v));
    }

    @Test
    void aVerdictAvroRefusesIsRefusedByAvrosWriterByName() {
        final RequestVerdict v = randomVerdict(new Random(2));
        v.setContractId(null); // possible through the setters, not through the builder
        assertThatThrownBy(() -> new VerdictWriter(REGISTRY.client()).serialize(TOPIC, v))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("cannot encode a dev.goodput.avro.RequestVerdict for topic " + TOPIC);
    }

    private static RequestVerdict randomVerdict(Random r) {
        return RandomRecords.fill(new RequestVerdict(), r);
    }
}

package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.goodput.avro.RequestVerdict;
import dev.goodput.definitions.Micros;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A verdict written from its fields is, byte for byte, what Avro's specific writer makes of it. The
 * verdicts are filled field by field from the schema itself, so a field added to the schema gets
 * values here too, and the writer either writes it or (its layout changed) hands every verdict to Avro.
 */
class VerdictWriterTest {
    private static final String TOPIC = "llm.verdicts";
    private static InProcessSchemaRegistry server;
    private static SchemaRegistryClient registry;

    @BeforeAll
    static void start() {
        server = InProcessSchemaRegistry.inMemory(0);
        registry = new SchemaRegistryClient(server.url());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void writesWhatAvrosWriterWritesForEveryKindOfVerdict() {
        final VerdictWriter fast = new VerdictWriter(registry);
        assertThat(fast.inPlace()).as("the writer is bound to this build's verdict schema; update it with the schema").isTrue();
        final AvroSerializer<RequestVerdict> avro = new AvroSerializer<>(registry, false);
        final AvroDeserializer<RequestVerdict> reader = new AvroDeserializer<>(registry, RequestVerdict.class);
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
        final VerdictWriter other = new VerdictWriter(registry, false);
        final RequestVerdict v = randomVerdict(new Random(1));
        assertThat(other.inPlace()).isFalse();
        assertThat(other.serialize(TOPIC, v)).containsExactly(new AvroSerializer<RequestVerdict>(registry, false).serialize(TOPIC, v));
    }

    @Test
    void aVerdictAvroRefusesIsRefusedByAvrosWriterByName() {
        final RequestVerdict v = randomVerdict(new Random(2));
        v.setContractId(null); // possible through the setters, not through the builder
        assertThatThrownBy(() -> new VerdictWriter(registry).serialize(TOPIC, v))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("cannot encode a dev.goodput.avro.RequestVerdict for topic " + TOPIC);
    }

    /** Every field from its schema: nulls in unions, empty and longer arrays, non-ASCII text, extreme numbers. */
    private static RequestVerdict randomVerdict(Random r) {
        final RequestVerdict v = new RequestVerdict();
        for (Schema.Field f : RequestVerdict.getClassSchema().getFields()) {
            v.put(f.pos(), value(f.schema(), r));
        }
        return v;
    }

    private static Object value(Schema s, Random r) {
        switch (s.getType()) {
            case UNION -> {
                final List<Schema> branches = s.getTypes();
                final Schema pick = branches.get(r.nextInt(branches.size()));
                return pick.getType() == Schema.Type.NULL ? null : value(pick, r);
            }
            case STRING -> {
                return text(r);
            }
            case LONG -> {
                final long n = r.nextLong() >> r.nextInt(64);
                if (s.getLogicalType() instanceof LogicalTypes.TimestampMicros) {
                    return Micros.toInstant(n >> 2); // within what an Instant holds
                }
                return n;
            }
            case INT -> {
                return r.nextInt() >> r.nextInt(32);
            }
            case DOUBLE -> {
                final double[] odd = {Double.NaN, -0.0, Double.POSITIVE_INFINITY, Double.MIN_VALUE};
                return r.nextInt(8) == 0 ? odd[r.nextInt(odd.length)] : r.nextGaussian() * Math.pow(10, r.nextInt(12));
            }
            case BOOLEAN -> {
                return r.nextBoolean();
            }
            case ENUM -> {
                return SpecificData.get().createEnum(s.getEnumSymbols().get(r.nextInt(s.getEnumSymbols().size())), s);
            }
            case ARRAY -> {
                final List<Object> items = new ArrayList<>();
                final int n = r.nextInt(3) == 0 ? 0 : r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    items.add(value(s.getElementType(), r));
                }
                return items;
            }
            default -> throw new IllegalStateException("a verdict field of type " + s.getType() + ": fill it here");
        }
    }

    private static String text(Random r) {
        final String[] pieces = {"", "c0ffee", "r-000123", "\u00e9t\u00e9", "\ud83d\ude80", "ttft", "a|b", "x".repeat(70)};
        final StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(3); i >= 0; i--) {
            b.append(pieces[r.nextInt(pieces.length)]);
        }
        return b.toString();
    }
}

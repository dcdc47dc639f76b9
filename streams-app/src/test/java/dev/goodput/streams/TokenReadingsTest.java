package dev.goodput.streams;

import static dev.goodput.streams.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.TokenEvent;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.serde.WireFormat;
import dev.goodput.topics.DeadLetters;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/**
 * A token event is read in place when its writer schema is this build's and decoded in full
 * otherwise; both readings must give the same verdicts, windows and refusals, with the same reasons.
 */
class TokenReadingsTest {
    private static final String FOREIGN = "f".repeat(64);

    /** This build's schema with one more optional field: another writer, so the fast reader declines. */
    private static final Schema EVOLVED = evolved();

    private static Schema evolved() {
        final Schema base = TokenEvent.getClassSchema();
        final List<Schema.Field> fields = new ArrayList<>();
        base.getFields().forEach(f -> fields.add(new Schema.Field(f, f.schema())));
        fields.add(new Schema.Field("note", SchemaBuilder.unionOf().nullType().and().stringType().endUnion(),
                "added by a newer writer", Schema.Field.NULL_DEFAULT_VALUE));
        return Schema.createRecord(base.getName(), base.getDoc(), base.getNamespace(), false, fields);
    }

    @Test
    void bothReadingsGiveTheSameResultsAndReasons() {
        final Run inPlace = run(f -> e -> new AvroSerializer<TokenEvent>(new SchemaRegistryClient(f.registry.url()), false)
                .serialize(f.config.topics().tokens(), e));
        final Run decoded = run(f -> {
            final int id = new SchemaRegistryClient(f.registry.url()).register(f.config.topics().tokens() + "-value", EVOLVED);
            return e -> evolvedBytes(id, e);
        });
        assertThat(inPlace.reasons).as("the log refuses what it should").containsExactly("late", "duplicate", "unknown_contract",
                "chunks_out_of_order");
        assertThat(decoded.reasons).isEqualTo(inPlace.reasons);
        assertThat(decoded.verdicts).isNotEmpty().isEqualTo(inPlace.verdicts);
        assertThat(decoded.windows).isNotEmpty().isEqualTo(inPlace.windows);
    }

    private record Run(List<String> reasons, List<Object> verdicts, List<Object> windows) {
    }

    private static Run run(Function<Fixture, Function<TokenEvent, byte[]>> writerOf) {
        try (Fixture f = new Fixture()) {
            final Function<TokenEvent, byte[]> writer = writerOf.apply(f);
            final long a = T0 + 1_000_000;
            for (int i = 0; i < 3; i++) {
                f.rawToken("a", writer.apply(token(Fixture.CONTRACT.id(), "a", i, a + i * 20_000L, false)), (a + i * 20_000L) / 1000);
            }
            f.request(Fixture.okEvent("a", a - 100_000, new long[] {a, a + 20_000, a + 40_000}).build());
            // an unknown contract's token event, late: refused as late, whichever way it was read
            f.rawToken("x", writer.apply(token(FOREIGN, "x", 0, T0 - 60_000_000L, false)), (a + 50_000) / 1000);
            // a chunk that came twice
            final long b = a + 2_000_000;
            f.rawToken("b", writer.apply(token(Fixture.CONTRACT.id(), "b", 0, b, false)), b / 1000);
            f.rawToken("b", writer.apply(token(Fixture.CONTRACT.id(), "b", 0, b, false)), b / 1000);
            // an unknown contract on time, a warm-up event (skipped), a chunk out of order
            f.rawToken("y", writer.apply(token(FOREIGN, "y", 0, b + 1_000, false)), (b + 1_000) / 1000);
            f.rawToken("w", writer.apply(token(Fixture.CONTRACT.id(), "w", 0, b + 2_000, true)), (b + 2_000) / 1000);
            f.rawToken("b", writer.apply(token(Fixture.CONTRACT.id(), "b", 2, b + 5_000, false)), (b + 5_000) / 1000);
            f.rawToken("b", writer.apply(token(Fixture.CONTRACT.id(), "b", 1, b + 9_000, false)), (b + 9_000) / 1000);
            f.request(Fixture.okEvent("b", b - 100_000, new long[] {b, b + 3_000, b + 5_000}).build());
            f.closeThrough(T0 + 40_000_000);
            final List<String> reasons = f.dlq.readRecordsToList().stream()
                    .map(r -> DeadLetters.header(r.headers(), DeadLetters.REASON)).toList();
            return new Run(reasons, new ArrayList<>(f.verdicts.readValuesToList()), new ArrayList<>(f.finals()));
        }
    }

    private static TokenEvent token(String contract, String id, int index, long arrivalUs, boolean warmup) {
        return TokenEvent.newBuilder().setContractId(contract).setRunId("run").setScenarioId("s1").setRequestId(id)
                .setChunkIndex(index).setKind(ChunkKind.ANSWER).setTokens(1).setArrivalTimeUs(Fixture.at(arrivalUs))
                .setWarmup(warmup).build();
    }

    private static byte[] evolvedBytes(int schemaId, TokenEvent e) {
        final GenericRecord g = new GenericData.Record(EVOLVED);
        for (Schema.Field f : TokenEvent.getClassSchema().getFields()) {
            final Object v = e.get(f.pos());
            g.put(f.name(), v instanceof ChunkKind k ? new GenericData.EnumSymbol(f.schema(), k.name())
                    : f.name().equals("arrival_time_us") ? dev.goodput.definitions.Micros.of(e.getArrivalTimeUs()) : v);
        }
        g.put("note", "from a newer generator");
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final byte[] header = new byte[WireFormat.HEADER_SIZE];
        WireFormat.writeHeader(header, schemaId);
        out.writeBytes(header);
        final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        try {
            new GenericDatumWriter<GenericRecord>(EVOLVED).write(g, enc);
            enc.flush();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return out.toByteArray();
    }
}

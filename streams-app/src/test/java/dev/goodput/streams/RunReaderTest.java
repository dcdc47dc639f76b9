package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.TokenChunk;
import dev.goodput.avro.TokenEvent;
import dev.goodput.definitions.Micros;
import dev.goodput.records.TokenRuns;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.serde.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A run read in place holds exactly what Avro's resolving reader decodes from the same bytes, for
 * runs of any length and any block layout of their array; any other writer schema, and any record
 * not readable to its last byte, is declined (the resolving reader then reads it or says why not).
 */
class RunReaderTest {
    private static final String TOPIC = "llm.tokens";
    @RegisterExtension
    static final RegistryExtension REGISTRY = new RegistryExtension();

    private static TokenInput input() {
        return new TokenInput(new RunReader(REGISTRY.client()), new AvroDeserializer<>(REGISTRY.client(), TokenEvent.class),
                new AvroSerializer<>(REGISTRY.client(), false), TOPIC, Set.of("c"), null);
    }

    private static TokenEvent randomRun(Random rnd) {
        final int n = 1 + rnd.nextInt(rnd.nextBoolean() ? 3 : 300);
        final List<TokenChunk> more = new ArrayList<>();
        long t = Math.abs(rnd.nextLong() % (1L << 52));
        final int first = rnd.nextInt(5) == 0 ? -rnd.nextInt(1000) : rnd.nextInt(100_000);
        for (int i = 1; i < n; i++) {
            t += rnd.nextInt(3) == 0 ? -rnd.nextInt(1_000) : rnd.nextInt(2_000_000);
            more.add(new TokenChunk(first + i, ChunkKind.values()[rnd.nextInt(3)], rnd.nextInt(50), Micros.toInstant(t)));
        }
        return new TokenEvent("c".repeat(1 + rnd.nextInt(70)), "run-" + rnd.nextInt(3), "s" + rnd.nextInt(4), "r" + rnd.nextInt(),
                first, ChunkKind.values()[rnd.nextInt(3)], rnd.nextInt(9), Micros.toInstant(Math.abs(rnd.nextLong() % (1L << 52))),
                rnd.nextBoolean(), more);
    }

    /** Each chunk as (index, arrival), then the ids and flags, as the join reads them. */
    private static List<String> view(TokenInput in) {
        final List<String> v = new ArrayList<>();
        v.add(in.contractText() + "|" + in.scenarioId() + "|" + in.skipped() + "|" + in.size());
        for (int i = 0; i < in.size(); i++) {
            in.at(i);
            v.add(in.chunkIndex() + "@" + in.arrivalUs());
        }
        return v;
    }

    private static Record<String, byte[]> record(byte[] value) {
        return new Record<>("r", value, 0L, new RecordHeaders());
    }

    @Test
    void readsInPlaceWhatTheResolvingReaderDecodes() {
        assertThat(SchemaNormalization.parsingFingerprint64(TokenEvent.getClassSchema()))
                .as("RunReader reads the layout of fingerprint LAYOUT; the schema changed: update the reader and LAYOUT")
                .isEqualTo(RunReader.LAYOUT);
        assertThat(new RunReader(REGISTRY.client()).inPlace()).isTrue();
        final AvroSerializer<TokenEvent> writer = new AvroSerializer<>(REGISTRY.client(), false);
        final AvroDeserializer<TokenEvent> reader = new AvroDeserializer<>(REGISTRY.client(), TokenEvent.class);
        final Random rnd = new Random(20261205L);
        for (int k = 0; k < 500; k++) {
            final TokenEvent e = randomRun(rnd);
            final byte[] bytes = k % 2 == 0 ? writer.serialize(TOPIC, e) : blocked(e, writer.serialize(TOPIC, e), 1 + rnd.nextInt(7));
            final TokenInput inPlace = input();
            assertThat(inPlace.read(record(bytes))).as("run %d read in place", k).isTrue();
            final TokenInput decoded = input();
            decoded.run(record(bytes), reader.deserialize(TOPIC, bytes));
            assertThat(view(inPlace)).as("run %d", k).isEqualTo(view(decoded)).hasSize(TokenRuns.size(e) + 1);
        }
    }

    @Test
    void declinesOtherWritersAndBytesItCannotReadToTheEnd() {
        final AvroSerializer<TokenEvent> writer = new AvroSerializer<>(REGISTRY.client(), false);
        final byte[] good = writer.serialize(TOPIC, randomRun(new Random(7)));
        assertThat(input().read(record(good))).isTrue();
        // truncated anywhere, or with a byte more: not this reader's to judge
        for (int cut = 0; cut < good.length; cut++) {
            assertThat(input().read(record(Arrays.copyOf(good, cut)))).as("cut at %d", cut).isFalse();
        }
        assertThat(input().read(record(Arrays.copyOf(good, good.length + 1)))).isFalse();
        final byte[] badMagic = good.clone();
        badMagic[0] = 1;
        assertThat(input().read(record(badMagic))).isFalse();
        final byte[] unknownId = good.clone();
        WireFormat.writeHeader(unknownId, 987_654);
        assertThat(input().read(record(unknownId))).isFalse();
        assertThat(input().read(record(null))).isFalse();
        // a chunk kind past the enum's symbols: the resolving reader refuses it, so this one must not take it
        final byte[] kind = writer.serialize(TOPIC, new TokenEvent("c", "r", "s", "q", 0, ChunkKind.ANSWER, 1,
                Micros.toInstant(1_000), false, List.of()));
        assertThat(input().read(record(kind))).isTrue();
        kind[WireFormat.HEADER_SIZE + 9] = 2 * 3;
        assertThat(input().read(record(kind))).isFalse();
        // another writer: this build's schema with one more field (a layout of its own)
        final Schema base = TokenEvent.getClassSchema();
        final List<Schema.Field> fields = new ArrayList<>();
        base.getFields().forEach(f -> fields.add(new Schema.Field(f, f.schema())));
        fields.add(new Schema.Field("note", SchemaBuilder.unionOf().nullType().and().stringType().endUnion(), null,
                Schema.Field.NULL_DEFAULT_VALUE));
        final int other = REGISTRY.client().register(TOPIC + "-value", Schema.createRecord(base.getName(), null, base.getNamespace(),
                false, fields));
        final byte[] otherWriter = good.clone();
        WireFormat.writeHeader(otherWriter, other);
        assertThat(input().read(record(otherWriter))).isFalse();
    }

    @Test
    void aRefusedChunkOfARunReadInPlaceGoesAloneWithItsOwnFields() {
        final AvroSerializer<TokenEvent> writer = new AvroSerializer<>(REGISTRY.client(), false);
        final AvroDeserializer<TokenEvent> reader = new AvroDeserializer<>(REGISTRY.client(), TokenEvent.class);
        final TokenEvent e = randomRun(new Random(11));
        final TokenInput in = input();
        assertThat(in.read(record(writer.serialize(TOPIC, e)))).isTrue();
        for (int i = 0; i < in.size(); i++) {
            in.at(i);
            final TokenEvent alone = reader.deserialize(TOPIC, in.record().value());
            assertThat(alone).isEqualTo(TokenRuns.single(e, i));
        }
    }

    /**
     * The same event with its array written in blocks of {@code block} items, each with a negative
     * count and its size in bytes, as Avro's blocking encoder writes them (a valid encoding any
     * reader must take).
     */
    private static byte[] blocked(TokenEvent e, byte[] plain, int block) {
        try {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(plain, 0, WireFormat.HEADER_SIZE);
            final TokenEvent head = TokenEvent.newBuilder(e).setMoreChunks(List.of()).build();
            final byte[] headBytes = encode(head);
            out.write(headBytes, 0, headBytes.length - 1); // without the empty array's terminating 0
            final List<TokenChunk> more = e.getMoreChunks();
            for (int from = 0; from < more.size(); from += block) {
                final ByteArrayOutputStream items = new ByteArrayOutputStream();
                final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(items, null);
                final SpecificDatumWriter<TokenChunk> w = new SpecificDatumWriter<>(TokenChunk.class);
                final int to = Math.min(more.size(), from + block);
                for (int i = from; i < to; i++) {
                    w.write(more.get(i), enc);
                }
                enc.flush();
                final BinaryEncoder counts = EncoderFactory.get().binaryEncoder(out, null);
                counts.writeLong(-(to - from));
                counts.writeLong(items.size());
                counts.flush();
                out.write(items.toByteArray());
            }
            out.write(0);
            return out.toByteArray();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static byte[] encode(TokenEvent e) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<>(TokenEvent.class).write(e, enc);
        enc.flush();
        return out.toByteArray();
    }
}

package dev.goodput.streams;

import static dev.goodput.streams.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenEvent;
import dev.goodput.failure.DeadLetterHandler;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One bad record is refused to the DLQ with its reason and original bytes, and the app goes on: it
 * used to fail the thread, whose replacement failed on the same record, forever. Impossible values
 * are refused at the door; an exception that escapes anyway is caught by the processing handler.
 */
class RecordFailureTest {

    private static final long S = 1_000_000L;
    private static final long MS = 1_000L;

    @ParameterizedTest(name = "batch size {0}")
    @ValueSource(ints = {0, 4})
    void chunkIndicesOutOfRangeAreRefusedAtTheDoorAndTheRestGoOn(int batch) {
        try (Fixture f = new Fixture(StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT)), batch)) {
            final long i = T0 + S;
            final List<byte[]> bad = new ArrayList<>();
            // -1 failed the task with ArrayIndexOutOfBounds; two billion sized the request's state until the heap ran out
            for (int index : new int[] {-1, 2_000_000_000}) {
                final TokenEvent t = TokenEvent.newBuilder().setContractId(Fixture.CONTRACT.id()).setRunId("run")
                        .setScenarioId("s1").setRequestId("bad" + index).setChunkIndex(index).setKind(ChunkKind.ANSWER).setTokens(1)
                        .setArrivalTimeUs(Fixture.at(i + 10 * MS)).setWarmup(false).build();
                bad.add(f.serdes.value(TokenEvent.class).serializer().serialize(f.config.topics().tokens(), t));
                f.rawToken("bad" + index, bad.get(bad.size() - 1), (i + 10 * MS) / 1000);
            }
            f.okRequest("good", i, i + 100 * MS, i + 120 * MS);
            f.flushTokens();

            assertThat(f.verdicts.readValuesToList()).extracting(v -> v.getRequestId().toString()).containsExactly("good");
            final List<TestRecord<String, byte[]>> dead = f.dlq.readRecordsToList();
            assertThat(dead).extracting(TestRecord::value).containsExactly(bad.get(0), bad.get(1));
            assertThat(dead).allSatisfy(d -> assertThat(DeadLetters.header(d.headers(), DeadLetters.REASON))
                    .isEqualTo("chunk_index_out_of_range"));
        }
    }

    /**
     * Any processor's exception on one record, with the streams-app's failure properties: the record
     * goes to the DLQ as processing_error with its original bytes, and the next one is processed.
     */
    @Test
    void aRecordWhoseProcessingThrowsGoesToTheDlqAndTheNextIsProcessed() {
        final StreamsSettings config = StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT));
        final StreamsBuilder b = new StreamsBuilder();
        b.stream("in", Consumed.with(Serdes.String(),
                        Serdes.String()))
                .mapValues(v -> {
                    if (v.equals("boom")) {
                        throw new IllegalStateException("cannot handle " + v);
                    }
                    return v.toUpperCase(Locale.ROOT);
                }, Named.as("may-throw"))
                .to("out", Produced.with(Serdes.String(),
                        Serdes.String()));
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "handler-test");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        p.putAll(StreamsApp.recordFailureProperties(config));
        try (TopologyTestDriver d = new TopologyTestDriver(b.build(), p)) {
            final var in = d.createInputTopic("in", new StringSerializer(),
                    new StringSerializer());
            in.pipeInput("k1", "boom");
            in.pipeInput("k2", "fine");
            assertThat(d.createOutputTopic("out", new StringDeserializer(),
                    new StringDeserializer()).readValuesToList()).containsExactly("FINE");
            final var dead = d.createOutputTopic(config.topics().dlq(), new StringDeserializer(),
                    new ByteArrayDeserializer()).readRecordsToList();
            assertThat(dead).hasSize(1);
            assertThat(new String(dead.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("boom");
            assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.REASON)).isEqualTo(DeadLetterHandler.REASON);
            assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.MESSAGE)).isEqualTo("IllegalStateException: cannot handle boom");
        }
    }

    /**
     * One request event dated 30 minutes after the log received it (a generator whose clock is fast):
     * refused as from_the_future, it moves no time, and the requests after it are not late (it used to
     * make every later request of its partition late).
     */
    @Test
    void anEventFromTheFutureIsRefusedAndMovesNoTime() {
        try (Fixture f = new Fixture()) {
            final long i = T0 + S;
            final long ahead = 30 * 60 * S;
            f.requests.pipeInput("future", f.ok("future", i + ahead, new long[] {i + ahead + 100 * MS}).build(), (i + 200 * MS) / 1000);
            f.okRequest("good", i + S, i + S + 100 * MS, i + S + 120 * MS);
            assertThat(f.verdicts.readValuesToList()).extracting(v -> v.getRequestId().toString()).containsExactly("good");
            final var dead = f.dlq.readRecordsToList();
            assertThat(dead).extracting(d -> DeadLetters.header(d.headers(), DeadLetters.REASON)).containsExactly("from_the_future");
            // within the bound, an event ahead of its log time is taken as it is
            f.requests.pipeInput("near", f.ok("near", i + 2 * S, new long[] {i + 2 * S + 100 * MS}).setContentChunks(0).setStatus(
                    RequestStatus.ERROR).setFirstChunkTimeUs(null).setLastChunkTimeUs(null).build(), (i - 50 * S) / 1000);
            assertThat(f.verdicts.readValuesToList()).extracting(v -> v.getRequestId().toString()).containsExactly("near");
        }
    }

    /**
     * Every duplicate, one behaviour: a request event again (it used to give a second verdict), a chunk
     * again (ignored silently), and a chunk of a finished request (kept as an orphan, then dropped) all go
     * to the DLQ as duplicate; the request is counted once.
     */
    @ParameterizedTest(name = "batch size {0}")
    @ValueSource(ints = {0, 3})
    void everyDuplicateIsRefusedOnceAndCountedOnce(int batch) {
        try (Fixture f = new Fixture(StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT)), batch)) {
            final long i = T0 + S;
            final long[] arrivals = {i + 100 * MS, i + 120 * MS};
            f.token("d1", 0, arrivals[0], 1, ChunkKind.ANSWER);
            f.token("d1", 0, arrivals[0], 1, ChunkKind.ANSWER);
            f.token("d1", 1, arrivals[1], 1, ChunkKind.ANSWER);
            f.flushTokens();
            final RequestEvent e = f.ok("d1", i, arrivals).build();
            f.request(e);
            f.request(e);
            f.token("d1", 1, arrivals[1], 1, ChunkKind.ANSWER);
            f.flushTokens();
            assertThat(f.verdicts.readValuesToList()).hasSize(1);
            assertThat(f.dlq.readRecordsToList()).extracting(d -> DeadLetters.header(d.headers(), DeadLetters.REASON))
                    .containsExactly("duplicate", "duplicate", "duplicate");
        }
    }

    @Test
    void aTokenEventWithoutAKeyIsRefusedAtTheDoor() {
        try (Fixture f = new Fixture()) {
            final long i = T0 + S;
            f.rawToken(null, new byte[] {0, 0, 0, 0, 1, 2}, i / 1000);
            f.okRequest("good", i, i + 100 * MS);
            assertThat(f.verdicts.readValuesToList()).hasSize(1);
            final var dead = f.dlq.readRecordsToList();
            assertThat(dead).hasSize(1);
            assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.REASON)).isEqualTo("null_key");
        }
    }

    @Test
    void aValueTooLargeForTheDlqIsCutWithAHeaderSayingSo() {
        try (Fixture f = new Fixture()) {
            final byte[] huge = new byte[5 * 1024 * 1024];
            huge[0] = 9; // not the wire format's magic byte: refused as unreadable
            f.rawToken("huge", huge, T0 / 1000);
            final var dead = f.dlq.readRecordsToList();
            assertThat(dead).hasSize(1);
            assertThat(dead.get(0).value()).hasSize(DeadLetters.MAX_VALUE_BYTES);
            assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.TRUNCATED_FROM)).isEqualTo(Integer.toString(huge.length));
        }
    }
}

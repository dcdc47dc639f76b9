package dev.goodput.streams;

import static dev.goodput.streams.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.TokenEvent;
import dev.goodput.failure.DeadLetterHandler;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One record whose processing throws is refused to the DLQ with its reason and original bytes,
 * and the app goes on: it used to fail the thread, whose replacement failed on the same record,
 * forever. The same whether token events come alone or coalesced into batches.
 */
class RecordFailureTest {

    private static final long S = 1_000_000L;
    private static final long MS = 1_000L;

    @ParameterizedTest(name = "batch size {0}")
    @ValueSource(ints = {0, 4})
    void aRecordThatThrowsGoesToTheDlqAndTheRestGoOn(int batch) {
        try (Fixture f = new Fixture(StreamsConfig.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT)), batch)) {
            final long i = T0 + S;
            final TokenEvent bad = TokenEvent.newBuilder().setContractId(Fixture.CONTRACT.id()).setRunId("run")
                    .setScenarioId("s1").setRequestId("bad").setChunkIndex(-1).setKind(ChunkKind.ANSWER).setTokens(1)
                    .setArrivalTimeUs(Fixture.at(i + 10 * MS)).setWarmup(false).build();
            final byte[] badBytes = f.serdes.value(TokenEvent.class).serializer().serialize(f.config.topics().tokens(), bad);
            f.rawToken("bad", badBytes, (i + 10 * MS) / 1000);
            f.okRequest("good", i, i + 100 * MS, i + 120 * MS);
            f.flushTokens();

            assertThat(f.verdicts.readValuesToList()).extracting(v -> v.getRequestId().toString()).containsExactly("good");
            final List<TestRecord<String, byte[]>> dead = f.dlq.readRecordsToList();
            assertThat(dead).hasSize(1);
            assertThat(dead.get(0).key()).isEqualTo("bad");
            assertThat(dead.get(0).value()).isEqualTo(badBytes);
            assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.REASON)).isEqualTo(DeadLetterHandler.REASON);
            assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.MESSAGE)).contains("Exception");
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

package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.List;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.ServerTimings;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

/** The engine's account beside the client's, figure by figure, on requests shaped as llama-server's. */
class EngineTableTest {

    private static final Instant T0 = Instant.parse("2026-12-03T08:00:00Z");

    /** A request sent at T0 + {@code atMs}, first chunk after {@code ttftMs}, {@code n} tokens {@code gapMs} apart. */
    private static RequestEvent request(String id, long atMs, long ttftMs, int n, long gapMs, ServerTimings t, int intended,
                                        int counted) {
        final Instant send = T0.plusMillis(atMs);
        final Instant first = send.plusMillis(ttftMs);
        return RequestEvent.newBuilder(SampleRecords.request()).setRequestId(id).setScenarioId("p256-o64-c8-cold")
                .setStatus(RequestStatus.OK).setErrorClass(null).setIntendedSendTimeUs(send).setActualSendTimeUs(send)
                .setFirstChunkTimeUs(first).setFirstAnswerTimeUs(first).setLastChunkTimeUs(first.plusMillis(gapMs * (n - 1)))
                .setCompletionTimeUs(first.plusMillis(gapMs * (n - 1) + 1)).setContentChunks(n).setOutputTokens(n)
                .setOutputTokensSource(TokenCountSource.SERVER_USAGE).setWarmup(false).setServerTimings(t)
                .setIntendedPromptTokens(intended).setPromptTokens(counted).build();
    }

    @Test
    void theEnginesTimingsAreSetBesideTheClients() {
        // the engine took 20 ms a gap and the client saw 20: ratio 1; llama.cpp's own per-token figure is 63/64 of it
        final List<RequestEvent> events = List.of(
                request("a", 0, 3000, 64, 20, new ServerTimings(256, 100.0, 64, 1260.0, 28, null), 256, 284),
                request("b", 10, 200, 64, 20, new ServerTimings(256, 150.0, 64, 1260.0, 28, null), 256, 284),
                request("c", 20, 3100, 64, 20, new ServerTimings(256, 100.0, 63, 1260.0, 28, null), 256, 284),
                request("d", 30, 90, 64, 20, null, 256, 400));
        final EngineTable.Row r = EngineTable.row("p256-o64-c8-cold", events, 28);
        assertThat(r.requests()).isEqualTo(4);
        assertThat(r.withTimings()).isEqualTo(3);
        assertThat(r.outputTokensEqual()).as("c: the engine says 63, the client 64").isEqualTo(2);
        // 3 x 63 gaps x 20 ms seen by the client against 3 x 1260 ms of the engine's
        assertThat(r.tpotRatio()).isCloseTo(1.0, within(1e-9));
        assertThat(r.decodePerGapP50Us()).isCloseTo(20_000.0, within(1e-6));
        assertThat(r.perTokenP50Us()).isCloseTo(1_260_000.0 / 64, within(1.0));
        assertThat(r.ttftP50Us()).isEqualTo(3_000_000);
        assertThat(r.prefillP50Us()).isEqualTo(100_000);
        // TTFT less the engine's prompt time: 2.9 s, 50 ms and 3.0 s
        assertThat(r.beforePrefillP50Us()).isEqualTo(2_900_000);
        assertThat(r.beforePrefillP99Us()).isEqualTo(3_000_000);
        assertThat(r.promptsOff()).as("d: 400 counted against 256 + 28").isEqualTo(1);
        final StringBuilder h = new StringBuilder();
        EngineTable.section(h, List.of(r));
        assertThat(h).contains("The engine's own account").contains("1.0000").contains("more than 5 % away");
    }

    @Test
    void aModelThatStopsOnEndOfSequenceIsTimedToItsFinish() {
        // llama.cpp: 9 text chunks 20 ms apart, then the EOS step (20 ms) and a finish chunk without text;
        // completion_tokens and predicted_n are 10, predicted_ms spans 9 gaps
        final RequestEvent base = request("e", 0, 100, 10, 20, new ServerTimings(64, 30.0, 10, 180.0, 0, null), 64, 64);
        final RequestEvent eos = RequestEvent.newBuilder(base).setContentChunks(9)
                .setLastChunkTimeUs(base.getFirstChunkTimeUs().plusMillis(160))
                .setLastChoiceTimeUs(base.getFirstChunkTimeUs().plusMillis(180))
                .setCompletionTimeUs(base.getFirstChunkTimeUs().plusMillis(181)).build();
        assertThat(EngineTable.row("s", List.of(eos), null).tpotRatio()).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void promptsTheServerDidNotCountAreLeftOutOfThePromptCheck() {
        // a timeout: no usage, so prompt_tokens is the generator's own 32, which the template's 28 would put "off"
        final RequestEvent timedOut = RequestEvent.newBuilder(request("t", 0, 100, 2, 10, null, 32, 32))
                .setStatus(RequestStatus.TIMEOUT).setOutputTokensSource(TokenCountSource.CHUNK_COUNT).build();
        final EngineTable.Row r = EngineTable.row("s", List.of(timedOut, request("a", 0, 100, 8, 10, null, 32, 60)), 28);
        assertThat(r.promptsOff()).isZero();
        assertThat(r.promptsNotCounted()).isEqualTo(1);
        assertThat(EngineTable.csv(List.of(r))).contains("prompts_not_counted");
    }

    @Test
    void noEngineTimingsNoSection() {
        final EngineTable.Row r = EngineTable.row("s", List.of(request("a", 0, 100, 8, 10, null, 64, 64)), null);
        final StringBuilder h = new StringBuilder();
        EngineTable.section(h, List.of(r));
        assertThat(h).isEmpty();
        assertThat(EngineTable.csv(List.of(r))).startsWith("scenario_id,requests,with_engine_timings");
    }
}

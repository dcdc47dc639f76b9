package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.avro.TokenEvent;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Conventions;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

class ConventionReplayTest {

    /** A request of {@code chunks} content chunks 10 ms apart whose server reported {@code outputTokens}. */
    private static void request(String id, int chunks, int outputTokens, List<RequestEvent> requests, List<TokenEvent> tokens) {
        final Instant send = SampleRecords.T0;
        for (int c = 0; c < chunks; c++) {
            tokens.add(TokenEvent.newBuilder(SampleRecords.token()).setRequestId(id).setChunkIndex(c).setKind(ChunkKind.ANSWER)
                    .setTokens(1).setWarmup(false).setArrivalTimeUs(send.plusMillis(100 + 10L * c)).build());
        }
        requests.add(RequestEvent.newBuilder(SampleRecords.request()).setRequestId(id).setAttempt(1).setScenarioId("s")
                .setStatus(RequestStatus.OK).setIntendedSendTimeUs(send).setActualSendTimeUs(send).setFirstChunkTimeUs(send.plusMillis(100))
                .setFirstAnswerTimeUs(send.plusMillis(100)).setFirstChoiceTimeUs(null).setLastChoiceTimeUs(null)
                .setLastChunkTimeUs(send.plusMillis(100 + 10L * (chunks - 1))).setCompletionTimeUs(send.plusMillis(100 + 10L * chunks))
                .setContentChunks(chunks).setOutputTokens(outputTokens).setOutputTokensSource(TokenCountSource.SERVER_USAGE)
                .setWarmup(false).build());
    }

    @Test
    void chunksThatCarriedSeveralTokensAreNamedFromUsageWithoutContinuousUsage() {
        final List<RequestEvent> requests = new ArrayList<>();
        final List<TokenEvent> tokens = new ArrayList<>();
        request("a", 4, 12, requests, tokens); // 8 tokens more than chunks
        request("b", 5, 5, requests, tokens);
        final var scenarios = ConventionReplay.compute(requests, tokens, Contract.Objectives.ofMillis(null, null, null), null);
        final var reasons = scenarios.get(0).reasons();
        assertThat(reasons.multiTokenChunks()).as("no per-chunk counts without continuous usage").isZero();
        assertThat(reasons.requestsBeyondChunks()).isEqualTo(1);
        assertThat(reasons.tokensBeyondChunks()).isEqualTo(8);
        assertThat(ConventionReplay.reasons(reasons)).anyMatch(l -> l.contains("1 requests reported more output tokens than content chunks, 8 tokens more"));
    }

    @Test
    void aChunkThatArrivedBeforeTheChunkItFollowsIsLeftOutAsTheStreamsAppLeavesItOut() {
        final List<RequestEvent> requests = new ArrayList<>();
        final List<TokenEvent> tokens = new ArrayList<>();
        request("a", 3, 3, requests, tokens);
        // chunk 2 published again 50 ms before chunk 1 (a broken publisher): a negative gap if taken
        tokens.set(2, TokenEvent.newBuilder(tokens.get(2)).setArrivalTimeUs(SampleRecords.T0.plusMillis(60)).build());
        final var scenarios = ConventionReplay.compute(requests, tokens, Contract.Objectives.ofMillis(null, null, null), null);
        final var itl = scenarios.get(0).results().get(Conventions.Tool.GOODPUT).stats().get("itl");
        assertThat(itl.samples()).as("only the gap between chunks 0 and 1").isEqualTo(1);
        assertThat(itl.meanUs()).isPositive();
    }
}

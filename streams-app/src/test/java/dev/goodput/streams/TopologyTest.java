package dev.goodput.streams;

import static dev.goodput.streams.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Histograms;
import dev.goodput.topics.DeadLetters;
import org.HdrHistogram.Histogram;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/** The topology, one definition at a time, with explicit event times. Windows are 10 s with 5 s grace. */
class TopologyTest {

    private static final long MS = 1_000;
    private static final long S = 1_000_000;

    @Test
    void verdictCarriesTtftE2eTpotFromTheIntendedSendTime() {
        try (Fixture f = new Fixture()) {
            // intended at T0+1s; chunks at +100 ms, +120 ms, +140 ms, +160 ms
            final long i = T0 + S;
            f.okRequest("r1", i, i + 100 * MS, i + 120 * MS, i + 140 * MS, i + 160 * MS);
            final RequestVerdict v = f.verdicts.readValue();
            assertThat(v.getTtftUs()).isEqualTo(100_000L);
            assertThat(v.getE2eUs()).isEqualTo(160_000L);
            // (160 - 100) ms / (4 - 1) tokens
            assertThat(v.getTpotUs()).isEqualTo(20_000.0);
            assertThat(v.getDispatchLatenessUs()).isEqualTo(100L);
            assertThat(v.getSloPass()).isTrue();
            assertThat(v.getGood()).isTrue();
            assertThat(v.getFailedObjectives()).isEmpty();
        }
    }

    @Test
    void multiTokenChunksTpotDividesByTokensItlIsPerChunkGap() {
        try (Fixture f = new Fixture()) {
            final long i = T0 + S;
            final long[] arrivals = {i + 50 * MS, i + 90 * MS, i + 130 * MS};
            for (int k = 0; k < 3; k++) {
                f.token("m1", k, arrivals[k], 4, ChunkKind.ANSWER);
            }
            // 3 chunks of 4 tokens = 12 output tokens from the server's usage
            f.request(f.ok("m1", i, arrivals).setOutputTokens(12).build());
            final RequestVerdict v = f.verdicts.readValue();
            assertThat(v.getTpotUs()).isCloseTo((130_000 - 50_000) / 11.0, within(1e-9));
            f.closeThrough(T0 + 16 * S);
            final WindowStats w = f.finals().get(0);
            // two gaps of 40 ms, one per chunk boundary (not per token)
            assertThat(w.getItl().getCount()).isEqualTo(2);
            assertThat(w.getItl().getP50Us()).isBetween(40_000L, 40_040L);
            assertThat(w.getOutputTokensOk()).isEqualTo(12);
        }
    }

    @Test
    void oneTokenRequestsHaveNoTpotAndAreJudgedOnTtftAndE2e() {
        try (Fixture f = new Fixture(StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT))
                .withObjectives(Contract.Objectives.ofMillis(500.0, 0.001, 10_000.0)))) {
            final long i = T0 + S;
            f.okRequest("one", i, i + 200 * MS);
            final RequestVerdict v = f.verdicts.readValue();
            assertThat(v.getTpotUs()).isNull();
            // a 1 us TPOT objective cannot be missed by a request that has no TPOT
            assertThat(v.getSloPass()).isTrue();
            f.closeThrough(T0 + 16 * S);
            final WindowStats w = f.finals().get(0);
            assertThat(w.getTpot().getCount()).isZero();
            assertThat(w.getTtft().getCount()).isEqualTo(1);
            assertThat(w.getGoodRequests()).isEqualTo(1);
        }
    }

    @Test
    void sloBoundsAreInclusive() {
        // objectives: TTFT 500 ms, TPOT 50 ms, E2E 10 s (the shipped contract)
        try (Fixture f = new Fixture()) {
            final long i = T0 + S;
            f.okRequest("at-bound", i, i + 500 * MS, i + 550 * MS);
            f.okRequest("over", i, i + 500 * MS + 1, i + 550 * MS);
            f.okRequest("tpot-at", i, i + 100 * MS, i + 150 * MS);
            f.okRequest("tpot-over", i, i + 100 * MS, i + 150 * MS + 1);
            final Map<String, RequestVerdict> v = new HashMap<>();
            f.verdicts.readValuesToList().forEach(x -> v.put(x.getRequestId(), x));
            assertThat(v.get("at-bound").getSloPass()).isTrue();
            assertThat(v.get("over").getSloPass()).isFalse();
            assertThat(v.get("over").getFailedObjectives()).containsExactly("ttft");
            assertThat(v.get("tpot-at").getSloPass()).isTrue();
            assertThat(v.get("tpot-over").getFailedObjectives()).containsExactly("tpot");
        }
    }

    @Test
    void failedRequestsAreCountedButKeptOutOfLatencyHistograms() {
        try (Fixture f = new Fixture()) {
            final long i = T0 + S;
            f.okRequest("ok", i, i + 100 * MS, i + 120 * MS);
            f.failedRequest("e1", i, i + 30 * MS, RequestStatus.ERROR, "http_503");
            f.failedRequest("e2", i, i + 40 * MS, RequestStatus.ERROR, "http_503");
            f.failedRequest("t1", i, i + 50 * MS, RequestStatus.TIMEOUT, "timeout");
            // a request that streamed 2 chunks and then failed: its gaps must not reach ITL
            f.sendChunks("reset", new long[] {i + 10 * MS, i + 900 * MS});
            f.request(f.ok("reset", i, new long[] {i + 10 * MS, i + 900 * MS}).setStatus(RequestStatus.ERROR)
                    .setErrorClass("connection").setQualityPass(null).setQualityScore(null).build());
            f.closeThrough(T0 + 16 * S);
            final WindowStats w = f.finals().get(0);
            assertThat(w.getRequestsTotal()).isEqualTo(5);
            assertThat(w.getRequestsOk()).isEqualTo(1);
            assertThat(w.getRequestsError()).isEqualTo(3);
            assertThat(w.getRequestsTimeout()).isEqualTo(1);
            assertThat(w.getErrorsByClass()).containsEntry("http_503", 2L).containsEntry("connection", 1L)
                    .containsEntry("timeout", 1L);
            assertThat(w.getTtft().getCount()).isEqualTo(1);
            assertThat(w.getE2e().getCount()).isEqualTo(1);
            assertThat(w.getItl().getCount()).isEqualTo(1);
            assertThat(w.getItl().getMaxUs()).isLessThan(21_000);
            assertThat(w.getDispatchLateness().getCount()).isEqualTo(5);
            assertThat(w.getGoodRequests()).isEqualTo(1);
            assertThat(w.getGoodFraction()).isEqualTo(0.2);
        }
    }

    @Test
    void duplicateChunksAreIgnoredAndOutOfOrderChunksSorted() {
        try (Fixture f = new Fixture()) {
            final long i = T0 + S;
            final long[] a = {i + 100 * MS, i + 130 * MS, i + 170 * MS};
            f.token("d1", 2, a[2], 1, ChunkKind.ANSWER);
            f.token("d1", 0, a[0], 1, ChunkKind.ANSWER);
            f.token("d1", 0, a[0], 1, ChunkKind.ANSWER);
            f.token("d1", 1, a[1], 1, ChunkKind.ANSWER);
            f.request(f.ok("d1", i, a).build());
            f.closeThrough(T0 + 16 * S);
            final WindowStats w = f.finals().get(0);
            assertThat(w.getItl().getCount()).isEqualTo(2);
            final Histogram h = Histograms.decode(bytes(w.getItl().getHistogram()));
            assertThat(h.getValueAtPercentile(0)).isBetween(30_000L, 30_030L);
            assertThat(h.getMaxValue()).isBetween(40_000L, 40_040L);
        }
    }

    @Test
    void aChunkThatArrivedBeforeTheChunkItFollowsIsRefusedNotMadeANegativeGap() {
        try (Fixture f = new Fixture()) {
            final long i = T0 + S;
            final long[] a = {i + 100 * MS, i + 50 * MS, i + 200 * MS};
            f.sendChunks("b1", a);
            f.request(f.ok("b1", i, a).build());
            f.closeThrough(T0 + 16 * S);
            final var dead = f.dlq.readRecordsToList();
            assertThat(dead).hasSize(1);
            assertThat(dead.get(0).key()).isEqualTo("b1");
            assertThat(Fixture.header(dead.get(0).headers(), DeadLetters.REASON)).isEqualTo("chunks_out_of_order");
            final WindowStats w = f.finals().get(0);
            assertThat(w.getRequestsTotal()).isEqualTo(1);
            // chunks 0 and 2 have no gap between them: chunk 1 is missing, not negative
            assertThat(w.getItl().getCount()).isZero();
            assertThat(w.getRefusedEvents()).containsEntry("chunks_out_of_order", 1L);
            // within every objective on the chunks that remain, but judged without one: incomplete, not good
            final RequestVerdict v = f.verdicts.readValuesToList().stream().filter(x -> x.getRequestId().equals("b1")).findFirst()
                    .orElseThrow();
            assertThat(v.getFailedObjectives()).containsExactly(Definitions.INCOMPLETE);
            assertThat(v.getGood()).isFalse();
            assertThat(v.getSloPass()).isFalse();
            assertThat(w.getGoodRequests()).isZero();
        }
    }

    @Test
    void requestEventsAheadOfTheirTokensWaitForThem() {
        try (Fixture f = new Fixture()) {
            final long i = T0 + S;
            final long[] a = {i + 100 * MS, i + 120 * MS, i + 150 * MS};
            // the request topic runs ahead: r1's request event, then a request 4 s later, then r1's tokens
            f.request(f.ok("r1", i, a).build());
            f.failedRequest("later", i + 4 * S, i + 4 * S + 10 * MS, RequestStatus.ERROR, "http_500");
            f.sendChunks("r1", a);
            f.closeThrough(T0 + 16 * S);
            final WindowStats w = f.finals().get(0);
            assertThat(w.getItl().getCount()).isEqualTo(2);
            assertThat(w.getRequestsTotal()).isEqualTo(2);
        }
    }

    @Test
    void itlGapsBelongToTheWindowOfTheirLaterChunk() {
        try (Fixture f = new Fixture()) {
            // a request that straddles the T0+10s boundary: gaps at 9.9 s (window 0) and 10.1 s (window 1)
            final long i = T0 + 9 * S;
            f.okRequest("x", i, i + 800 * MS, i + 900 * MS, i + 1_100 * MS);
            f.closeThrough(T0 + 26 * S);
            final List<WindowStats> finals = f.finals();
            final WindowStats w0 = finals.stream().filter(w -> w.getWindowStartUs().equals(Fixture.at(T0))).findFirst().orElseThrow();
            final WindowStats w1 = finals.stream().filter(w -> w.getWindowStartUs().equals(Fixture.at(T0 + 10 * S))).findFirst().orElseThrow();
            assertThat(w0.getItl().getCount()).isEqualTo(1);
            assertThat(w0.getRequestsTotal()).isZero();
            assertThat(w1.getItl().getCount()).isEqualTo(1);
            assertThat(w1.getRequestsTotal()).isEqualTo(1);
        }
    }

    @Test
    void percentilesMatchHandComputedValuesWithinHdrPrecision() {
        try (Fixture f = new Fixture()) {
            // 100 requests with TTFT 1 ms .. 100 ms
            for (int k = 1; k <= 100; k++) {
                final long i = T0 + S + k * 10 * MS;
                f.okRequest("p" + k, i, i + k * MS, i + k * MS + 10 * MS);
            }
            f.closeThrough(T0 + 16 * S);
            final WindowStats w = f.finals().get(0);
            assertThat(w.getTtft().getCount()).isEqualTo(100);
            // nearest-rank: p50 = 50 ms, p90 = 90 ms, p99 = 99 ms, max = 100 ms; HdrHistogram reports the
            // highest value of the bucket, at 3 significant digits (<= 0.1% above)
            assertThat(w.getTtft().getP50Us()).isBetween(50_000L, 50_050L);
            assertThat(w.getTtft().getP90Us()).isBetween(90_000L, 90_090L);
            assertThat(w.getTtft().getP99Us()).isBetween(99_000L, 99_100L);
            assertThat(w.getTtft().getMaxUs()).isBetween(100_000L, 100_100L);
            assertThat(w.getTtft().getMeanUs()).isCloseTo(50_500, within(60.0));
        }
    }

    @Test
    void oneFinalRecordPerWindowAfterLiveUpdates() {
        try (Fixture f = new Fixture()) {
            final long i = T0 + S;
            f.okRequest("a", i, i + 100 * MS, i + 110 * MS);
            f.tick();
            f.okRequest("b", i + S, i + S + 100 * MS, i + S + 110 * MS);
            // the partial aggregate goes to the merger with the assembler's heartbeat; the live update after it
            f.tick();
            f.tick();
            final List<TestRecord<String, WindowStats>> live = f.windows.readRecordsToList();
            assertThat(live).isNotEmpty().allMatch(r -> !r.value().getIsFinal());
            assertThat(live.get(live.size() - 1).value().getRequestsTotal()).isEqualTo(2);
            // not final before end + grace (T0 + 15 s)
            f.closeThrough(T0 + 14 * S);
            assertThat(f.finals()).isEmpty();
            f.closeThrough(T0 + 15 * S);
            final List<WindowStats> finals = f.finals();
            assertThat(finals).hasSize(1);
            assertThat(finals.get(0).getRequestsTotal()).isEqualTo(2);
            f.closeThrough(T0 + 40 * S);
            assertThat(f.finals()).noneMatch(w -> w.getWindowStartUs().equals(Fixture.at(T0)));
        }
    }

    @Test
    void lateRequestsGoToTheDlqWithTheirBytes() {
        try (Fixture f = new Fixture()) {
            f.okRequest("now", T0 + 30 * S, T0 + 30 * S + 100 * MS);
            f.dlq.readRecordsToList();
            // completed at T0+2s: its window closed at T0+15s, stream time is T0+30s
            f.failedRequest("late", T0 + S, T0 + 2 * S, RequestStatus.ERROR, "http_500");
            final var dead = f.dlq.readRecord();
            assertThat(dead.key()).isEqualTo("late");
            assertThat(DeadLetters.header(dead.headers(), DeadLetters.REASON)).isEqualTo("late");
            assertThat(DeadLetters.header(dead.headers(), DeadLetters.SOURCE_TOPIC)).isEqualTo("llm.requests");
            assertThat(dead.value()[0]).isEqualTo((byte) 0);
        }
    }

    @Test
    void malformedAndUnknownContractEventsGoToTheDlqAndProcessingContinues() {
        try (Fixture f = new Fixture()) {
            f.rawTokens.pipeInput("bad", new byte[] {9, 9, 9, 9, 9, 9});
            f.token("f".repeat(64), "stranger", 0, T0 + S, 1, ChunkKind.ANSWER);
            f.okRequest("fine", T0 + S, T0 + S + 100 * MS);
            final var dead = f.dlq.readRecordsToList();
            assertThat(dead).hasSize(2);
            assertThat(DeadLetters.header(dead.get(0).headers(), DeadLetters.REASON)).isEqualTo("bad_magic");
            assertThat(dead.get(0).value()).containsExactly(9, 9, 9, 9, 9, 9);
            assertThat(DeadLetters.header(dead.get(1).headers(), DeadLetters.REASON)).isEqualTo("unknown_contract");
            assertThat(f.verdicts.readValue().getRequestId()).isEqualTo("fine");
        }
    }

    @Test
    void eventsMixingContractsAreRefused() {
        final Contract other = ContractLoader.parse("other",
                Fixture.CONTRACT.canonicalJson().replace("\"bf16\"", "\"fp16\""));
        try (Fixture f = new Fixture(StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT,
                other.id(), other)))) {
            f.token("mix", 0, T0 + S, 1, ChunkKind.ANSWER);
            f.token(other.id(), "mix", 1, T0 + S + 10 * MS, 1, ChunkKind.ANSWER);
            final var dead = f.dlq.readRecord();
            assertThat(DeadLetters.header(dead.headers(), DeadLetters.REASON)).isEqualTo("mixed_contracts");
        }
    }

    @Test
    void goodputFiguresPerWindow() {
        try (Fixture f = new Fixture()) {
            final long i = T0 + S;
            f.okRequest("g1", i, i + 100 * MS, i + 120 * MS, i + 140 * MS);
            f.request(f.ok("q1", i, new long[] {i + 100 * MS, i + 120 * MS}).setQualityPass(false).setQualityScore(0.0).build());
            f.sendChunks("q1", new long[] {i + 100 * MS, i + 120 * MS});
            f.closeThrough(T0 + 16 * S);
            final WindowStats w = f.finals().get(0);
            assertThat(w.getRequestsOk()).isEqualTo(2);
            assertThat(w.getQualityPassRequests()).isEqualTo(1);
            assertThat(w.getGoodRequests()).isEqualTo(1);
            assertThat(w.getOutputTokensGood()).isEqualTo(3);
            assertThat(w.getGoodputRps()).isEqualTo(0.1);
            assertThat(w.getGoodputTokensPerS()).isEqualTo(0.3);
            assertThat(w.getTokensPerGpuSecond()).isEqualTo(0.5);
            assertThat(w.getPriceKey()).isEqualTo("example-cloud/h100-sxm");
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        final byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

}

package dev.goodput.streams;

import static dev.goodput.streams.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenEvent;
import dev.goodput.records.TokenRuns;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Chunks sent in runs ({@link TokenRuns}, as the generator's sink sends them) give exactly the
 * results they give one chunk per token event, refusals included.
 */
class TokenRunsTest {

    private static final long MS = 1_000;
    private static final long S = 1_000_000;

    /** Every definition's path at once: multi-token chunks, duplicates, out-of-order, failures, refusals, late. */
    private static List<String> run(Fixture f) {
        final long i = T0 + S;
        f.okRequest("a", i, i + 100 * MS, i + 120 * MS, i + 150 * MS, i + 190 * MS);
        for (int k = 0; k < 3; k++) {
            f.token("m", k, i + (50 + 40 * k) * MS, 4, ChunkKind.ANSWER);
        }
        f.request(f.ok("m", i, new long[] {i + 50 * MS, i + 90 * MS, i + 130 * MS}).setOutputTokens(12).build());
        // duplicated and reordered chunks
        f.token("d", 1, i + 220 * MS, 1, ChunkKind.ANSWER);
        f.token("d", 0, i + 200 * MS, 1, ChunkKind.ANSWER);
        f.token("d", 1, i + 220 * MS, 1, ChunkKind.ANSWER);
        f.token("d", 2, i + 260 * MS, 1, ChunkKind.ANSWER);
        f.rawToken("bad", new byte[] {9, 9, 9, 9, 9, 9}, i / 1000);
        f.token("f".repeat(64), "stranger", 0, i + 300 * MS, 1, ChunkKind.ANSWER);
        f.request(f.ok("d", i, new long[] {i + 200 * MS, i + 220 * MS, i + 260 * MS}).build());
        f.failedRequest("x", i, i + 2 * S, RequestStatus.ERROR, "http_500");
        f.request(f.ok("q", i, new long[] {i + 400 * MS, i + 450 * MS}).setQualityPass(false).setQualityScore(0.0).build());
        f.sendChunks("q", new long[] {i + 400 * MS, i + 450 * MS});
        f.okRequest("next", T0 + 12 * S, T0 + 12 * S + 80 * MS, T0 + 12 * S + 95 * MS);
        f.closeThrough(T0 + 16 * S);
        f.failedRequest("late", T0 + S, T0 + 2 * S, RequestStatus.ERROR, "http_500");
        f.closeThrough(T0 + 30 * S);

        final List<String> out = new ArrayList<>();
        f.verdicts.readRecordsToList().forEach(r -> out.add("verdict " + r.key() + " " + r.value()));
        f.finals().forEach(w -> out.add("window " + w));
        for (TestRecord<String, byte[]> d : f.dlq.readRecordsToList()) {
            out.add("dlq " + d.key() + " " + DeadLetters.header(d.headers(), DeadLetters.REASON) + " "
                    + Arrays.toString(d.value()));
        }
        return out;
    }

    private static Fixture fixture(int runSize) {
        return new Fixture(StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT)), runSize);
    }

    @Test
    void runsGiveTheSameVerdictsWindowsAndDeadLetters() {
        final List<String> single;
        try (Fixture f = fixture(0)) {
            single = run(f);
        }
        assertThat(single).filteredOn(s -> s.startsWith("verdict ")).hasSize(8);
        assertThat(single).filteredOn(s -> s.startsWith("window ")).hasSize(2);
        // bad bytes, an unknown contract, a late request, and the chunk that came twice (refused as duplicate)
        assertThat(single).filteredOn(s -> s.startsWith("dlq ")).hasSize(4);
        for (int n : new int[] {1, 2, 3, 64}) {
            try (Fixture f = fixture(n)) {
                assertThat(run(f)).as("runs of up to %d", n).containsExactlyElementsOf(single);
            }
        }
    }

    @Test
    void aRefusedChunkOfARunGoesToTheDlqAloneAndTheRestJoins() {
        try (Fixture f = fixture(0)) {
            final long i = T0 + S;
            f.token("a", 0, i, 1, ChunkKind.ANSWER);
            f.token("a", 1, i + 10 * MS, 1, ChunkKind.ANSWER);
            // one run: chunk 1 again (a duplicate) between chunks 2 and 3
            final TokenEvent run = event("a", 2, i + 20 * MS);
            TokenRuns.append(run, event("a", 1, i + 10 * MS));
            TokenRuns.append(run, event("a", 3, i + 30 * MS));
            f.tokens.pipeInput("a", run, (i + 30 * MS) / 1000);
            f.request(f.ok("a", i - 100 * MS, new long[] {i, i + 10 * MS, i + 20 * MS, i + 30 * MS}).build());
            final TestRecord<String, byte[]> dead = f.dlq.readRecord();
            assertThat(DeadLetters.header(dead.headers(), DeadLetters.REASON)).isEqualTo("duplicate");
            final TokenEvent refused = f.serdes.value(TokenEvent.class).deserializer().deserialize("llm.tokens", dead.value());
            assertThat(TokenRuns.size(refused)).isEqualTo(1);
            assertThat(refused.getChunkIndex()).isEqualTo(1);
            assertThat(f.dlq.isEmpty()).isTrue();
            assertThat(f.verdicts.readValue().getStatus()).isEqualTo(RequestStatus.OK);
        }
    }

    private static TokenEvent event(String id, int index, long arrivalUs) {
        return TokenEvent.newBuilder().setContractId(Fixture.CONTRACT.id()).setRunId("run").setScenarioId("s1")
                .setRequestId(id).setChunkIndex(index).setKind(ChunkKind.ANSWER).setTokens(1)
                .setArrivalTimeUs(Fixture.at(arrivalUs)).setWarmup(false).build();
    }

    /** events-total over every task of the driver. */
    private static double events(Fixture f) {
        return f.driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals(EventsMetric.GROUP) && e.getKey().name().equals(EventsMetric.TOTAL))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    @Test
    void theEventsMetricCountsEveryChunkOfARun() {
        final double single;
        try (Fixture f = fixture(0)) {
            run(f);
            single = events(f);
        }
        // each record that came alone is one event; with runs of 64, Kafka Streams sees far fewer records
        assertThat(single).isGreaterThan(20);
        try (Fixture f = fixture(64)) {
            run(f);
            assertThat(events(f)).isEqualTo(single);
        }
    }
}

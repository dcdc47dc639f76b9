package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.TokenEvent;
import dev.goodput.avro.WindowStats;
import dev.goodput.records.TokenRuns;
import dev.goodput.assembly.time.LogClock;
import dev.goodput.topics.Control;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The event-time core's promise, tried on randomized logs (a fixed list of seeds): for any
 * heartbeat cadence, interleaving of the two raw topics and replay speed, the final window records,
 * the verdicts and the refused records are the same. Each log is tried with one chunk per token
 * event and with its chunks gathered into runs as the generator's sink gathers them (a run's record
 * carries its last chunk's log time, so it is another log, with its own reference). Each log holds long
 * requests (up to 40 s, several windows each), token events published late, request events
 * published late, duplicated request events, a request without chunks and an orphan (chunks whose
 * request event never comes: its producer died between them); its records carry log times (the
 * broker's append time) as they would on the raw topics. Half the seeds end as a generator ends a run
 * (ticks through the last windows' grace, then end-of-run markers, which refuse the orphan at once),
 * the other half with ticks a minute on (the orphan expires).
 */
class EventTimePropertyTest {

    private static final long MS = 1_000;
    private static final long S = 1_000_000;

    /**
     * One record of the log: a token event (a run when {@code more} holds its later chunks), a request
     * event, or a tick, on its topic at its log time.
     */
    private record Rec(boolean tokenTopic, long logMs, String id, int index, long arrivalUs, RequestEvent request,
                       List<Rec> more) {
        Rec(boolean tokenTopic, long logMs, String id, int index, long arrivalUs, RequestEvent request) {
            this(tokenTopic, logMs, id, index, arrivalUs, request, List.of());
        }
    }

    /** How one run reads the log. */
    private record Reading(String name, double tokenBias, double heartbeatChance, long maxHeartbeatMs) {
    }

    /** The generator's and the proxy's flush interval: a run holds the chunks of one request published within it. */
    private static final long RUN_MS = TokenRuns.PRODUCER_INTERVAL.toMillis();

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 5, 8, 13, 21, 34})
    void finalRecordsDependOnTheLogAlone(long seed) {
        final List<Rec> tokens = new ArrayList<>();
        final List<Rec> requests = new ArrayList<>();
        final Oracle oracle = generate(new Random(seed), tokens, requests, seed % 2 == 0);

        // the reference: both topics in log-time order, a heartbeat after every record
        final Outcome reference = run(tokens, requests, new Reading("log order", -1, 1.0, 200), new Random(0));
        assertThat(reference.finals).as("final windows").isNotEmpty();
        assertThat(reference.requestsInFinals).as("requests in final windows").isEqualTo(oracle.onTime);
        assertThat(reference.dlqReasons.getOrDefault("late", 0)).as("late records in the DLQ").isEqualTo(oracle.late);
        assertThat(reference.lateEvents).as("late records counted in the windows").isEqualTo(oracle.late);
        assertThat(reference.refusedInFinals).as("refused records counted in the windows, by reason")
                .isEqualTo(oracle.duplicates == 0 ? Map.of("late", (long) oracle.late, Refusals.ORPHANED, 1L)
                        : Map.of("late", (long) oracle.late, "duplicate", (long) oracle.duplicates, Refusals.ORPHANED, 1L));
        assertThat(reference.dlqReasons.getOrDefault(Refusals.ORPHANED, 0)).as("the orphan, refused").isEqualTo(1);
        assertThat(reference.dlqReasons.getOrDefault("duplicate", 0)).as("duplicated request events").isEqualTo(oracle.duplicates);

        final Random how = new Random(seed * 31 + 7);
        final List<Reading> readings = List.of(
                new Reading("every token first", 1.0, 0.3, 700),
                new Reading("every request first", 0.0, 0.3, 700),
                new Reading("random, rare long heartbeats (replay)", 0.6, 0.02, 3000),
                new Reading("random, frequent heartbeats (live)", 0.5, 0.8, 250),
                new Reading("random, no heartbeat until the end", 0.8, 0.0, 0),
                new Reading("random, heartbeats now and then", 0.3, 0.5, 1500));
        for (Reading r : readings) {
            final Outcome o = run(tokens, requests, r, how);
            assertThat(o.finals).as("final window records, " + r.name).containsExactlyElementsOf(reference.finals);
            assertThat(o.verdicts).as("verdicts, " + r.name).containsExactlyElementsOf(reference.verdicts);
            assertThat(o.dlq).as("refused records, " + r.name).containsExactlyElementsOf(reference.dlq);
        }

        // the same chunks in runs: its own log, read every way with the same results
        final List<Rec> runs = runs(tokens);
        assertThat(runs.size()).as("runs gather chunks").isLessThan(tokens.size());
        final Outcome runReference = run(runs, requests, new Reading("log order", -1, 1.0, 200), new Random(0));
        assertThat(runReference.requestsInFinals).as("requests in final windows, runs").isPositive();
        for (Reading r : readings) {
            final Outcome o = run(runs, requests, r, how);
            assertThat(o.finals).as("final window records, runs, " + r.name).containsExactlyElementsOf(runReference.finals);
            assertThat(o.verdicts).as("verdicts, runs, " + r.name).containsExactlyElementsOf(runReference.verdicts);
            assertThat(o.dlq).as("refused records, runs, " + r.name).containsExactlyElementsOf(runReference.dlq);
        }
    }

    /**
     * The token log with each request's chunks gathered as the generator's sink gathers them: the
     * chunks of one request published within {@link #RUN_MS} of the run's first, the run's record at
     * its last chunk's log time; in log order.
     */
    private static List<Rec> runs(List<Rec> tokens) {
        final Map<String, List<Rec>> open = new TreeMap<>();
        final List<Rec> out = new ArrayList<>();
        for (Rec t : tokens) {
            if (t.id == null) {
                out.add(t);
                continue;
            }
            final List<Rec> run = open.get(t.id);
            if (run != null && t.logMs - run.get(0).logMs <= RUN_MS) {
                run.add(t);
                continue;
            }
            if (run != null) {
                out.add(asRun(run));
            }
            open.put(t.id, new ArrayList<>(List.of(t)));
        }
        open.values().forEach(run -> out.add(asRun(run)));
        out.sort(Comparator.comparingLong(Rec::logMs));
        return out;
    }

    private static Rec asRun(List<Rec> chunks) {
        final Rec first = chunks.get(0);
        final long logMs = chunks.stream().mapToLong(Rec::logMs).max().orElseThrow();
        return new Rec(true, logMs, first.id, first.index, first.arrivalUs, null, chunks.subList(1, chunks.size()));
    }

    private record Outcome(List<String> finals, List<String> verdicts, List<String> dlq, long requestsInFinals,
                           long lateEvents, Map<String, Integer> dlqReasons, Map<String, Long> refusedInFinals) {
    }

    private static Outcome run(List<Rec> tokens, List<Rec> requests, Reading reading, Random how) {
        try (Fixture f = new Fixture(StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT)))) {
            int t = 0;
            int q = 0;
            while (t < tokens.size() || q < requests.size()) {
                final boolean takeToken;
                if (t == tokens.size()) {
                    takeToken = false;
                } else if (q == requests.size()) {
                    takeToken = true;
                } else if (reading.tokenBias < 0) {
                    takeToken = tokens.get(t).logMs <= requests.get(q).logMs;
                } else {
                    takeToken = how.nextDouble() < reading.tokenBias;
                }
                pipe(f, takeToken ? tokens.get(t++) : requests.get(q++));
                if (how.nextDouble() < reading.heartbeatChance) {
                    f.driver.advanceWallClockTime(Duration.ofMillis(1 + (long) (how.nextDouble() * reading.maxHeartbeatMs)));
                }
            }
            for (int i = 0; i < 5; i++) {
                f.driver.advanceWallClockTime(Duration.ofMillis(1100));
            }
            final Serde serde = new Serde(f);
            final List<String> finals = new ArrayList<>();
            long inFinals = 0;
            long late = 0;
            final Map<String, Long> refused = new TreeMap<>();
            for (TestRecord<String, WindowStats> w : f.windows.readRecordsToList()) {
                if (w.value().getIsFinal()) {
                    finals.add(w.key() + " requests=" + w.value().getRequestsTotal() + " itl=" + w.value().getItl().getCount()
                            + " late=" + w.value().getLateEvents() + " " + serde.window(w.value()));
                    inFinals += w.value().getRequestsTotal();
                    late += w.value().getLateEvents();
                    w.value().getRefusedEvents().forEach((k, v) -> refused.merge(k, v, Long::sum));
                }
            }
            final List<String> verdicts = new ArrayList<>();
            for (TestRecord<String, RequestVerdict> v : f.verdicts.readRecordsToList()) {
                verdicts.add(v.key() + " " + serde.verdict(v.value()));
            }
            verdicts.sort(null);
            final List<String> dlq = new ArrayList<>();
            final Map<String, Integer> reasons = new TreeMap<>();
            for (TestRecord<String, byte[]> d : f.dlq.readRecordsToList()) {
                final String reason = DeadLetters.header(d.headers(), DeadLetters.REASON);
                dlq.add(d.key() + " " + reason + " " + Serde.body(d.value()));
                reasons.merge(reason, 1, Integer::sum);
            }
            dlq.sort(null);
            return new Outcome(finals, verdicts, dlq, inFinals, late, reasons, refused);
        }
    }

    private static void pipe(Fixture f, Rec r) {
        if (r.id == null) {
            f.control(r.tokenTopic, r.logMs, r.index == END_OF_RUN ? Control.END_OF_RUN : Control.TICK);
        } else if (r.tokenTopic && !r.more.isEmpty()) {
            final TokenEvent run = chunk(r);
            r.more.forEach(c -> TokenRuns.append(run, chunk(c)));
            f.tokens.pipeInput(r.id, run, r.logMs);
        } else if (r.tokenTopic) {
            f.tokenLogged(Fixture.CONTRACT.id(), r.id, r.index, r.arrivalUs, 1, ChunkKind.ANSWER, r.logMs);
        } else {
            f.requestLogged(r.request, r.logMs);
        }
    }

    private static TokenEvent chunk(Rec r) {
        return TokenEvent.newBuilder().setContractId(Fixture.CONTRACT.id()).setRunId("run").setScenarioId("s1")
                .setRequestId(r.id).setChunkIndex(r.index).setKind(ChunkKind.ANSWER).setTokens(1)
                .setArrivalTimeUs(Fixture.at(r.arrivalUs)).setWarmup(false).build();
    }

    /** What the log must give, counted from the generated records by the definitions, not by the topology. */
    private static final class Oracle {
        long onTime;
        int late;
        int duplicates;
    }

    /** The {@code index} of a control record that marks the end of a run (a tick's is 0). */
    private static final int END_OF_RUN = 1;

    private static Oracle generate(Random r, List<Rec> tokens, List<Rec> requests, boolean endOfRun) {
        final StreamsSettings c = StreamsSettings.defaults(Map.of(Fixture.CONTRACT.id(), Fixture.CONTRACT));
        final long window = c.windowUs();
        final long grace = c.graceUs();
        final Oracle oracle = new Oracle();
        final long start = Fixture.T0 + S;
        final int n = 8 + r.nextInt(6);
        long lastLogMs = 0;
        for (int k = 0; k < n; k++) {
            final String id = "r" + k;
            final long intended = start + (long) (r.nextDouble() * 40 * S);
            if (k == 0) {
                // a request without chunks (an error): it has nothing to hold and nothing to wait for
                final long completion = intended + 300 * MS;
                final long logMs = completion / MS + r.nextInt(150);
                requests.add(new Rec(false, logMs, id, 0, 0,
                        Fixture.failedEvent(id, intended, completion, RequestStatus.ERROR, "http_500")));
                oracle.onTime++;
                lastLogMs = Math.max(lastLogMs, logMs);
                continue;
            }
            if (k == 1) {
                // an orphan: chunks on time, and no request event ever
                for (int i = 0; i < 6; i++) {
                    final long arrival = intended + (200 + 300L * i) * MS;
                    final long logMs = arrival / MS + r.nextInt(150);
                    tokens.add(new Rec(true, logMs, id, i, arrival, null));
                    lastLogMs = Math.max(lastLogMs, logMs);
                }
                continue;
            }
            final long step = (150 + r.nextInt(250)) * MS;
            final int chunks = (int) ((5 * S + (long) (r.nextDouble() * 35 * S)) / step);
            final long[] arrivals = new long[chunks];
            arrivals[0] = intended + (100 + r.nextInt(700)) * MS;
            for (int i = 1; i < chunks; i++) {
                arrivals[i] = arrivals[i - 1] + step - 20 * MS + r.nextInt(40) * MS;
            }
            final List<Long> logs = new ArrayList<>();
            for (int i = 0; i < chunks; i++) {
                // now and then a token event is published long after its chunk came (a stalled producer)
                final long delayMs = i > 0 && r.nextInt(60) == 0 ? 6_000 + r.nextInt(14_000) : r.nextInt(200);
                final long logMs = arrivals[i] / MS + delayMs;
                tokens.add(new Rec(true, logMs, id, i, arrivals[i], null));
                logs.add(logMs);
                if (LogClock.late(arrivals[i], logMs * MS, window, grace)) {
                    oracle.late++;
                }
            }
            final RequestEvent e = Fixture.okEvent(id, intended, arrivals).build();
            final long completion = arrivals[chunks - 1] + 10;
            final boolean lateRequest = r.nextInt(8) == 0;
            final long logMs = completion / MS + (lateRequest ? 16_000 + r.nextInt(10_000) : r.nextInt(150));
            requests.add(new Rec(false, logMs, id, 0, 0, e));
            lastLogMs = Math.max(lastLogMs, Math.max(logMs, Collections.max(logs)));
            if (LogClock.late(completion, logMs * MS, window, grace)) {
                oracle.late++;
                continue;
            }
            oracle.onTime++;
            if (r.nextInt(6) == 0) {
                // an at-least-once re-publish of the request event, a moment later
                final long againMs = logMs + 500 + r.nextInt(2_000);
                requests.add(new Rec(false, againMs, id, 0, 0, e));
                if (LogClock.late(completion, againMs * MS, window, grace)) {
                    oracle.late++;
                } else {
                    oracle.duplicates++;
                }
            }
        }
        if (endOfRun) {
            // as a generator ends a run: ticks through the last windows' grace, then the end-of-run marker on each topic
            final long end = lastLogMs + (window + grace) / MS + 1_000;
            tokens.add(new Rec(true, end - 500, null, 0, 0, null));
            requests.add(new Rec(false, end - 500, null, 0, 0, null));
            tokens.add(new Rec(true, end, null, END_OF_RUN, 0, null));
            requests.add(new Rec(false, end + 3, null, END_OF_RUN, 0, null));
        } else {
            // ticks a minute on: the orphan expires (--orphan-expiry, 60 s of log time after its last chunk), every window closes
            tokens.add(new Rec(true, lastLogMs + 60_000, null, 0, 0, null));
            requests.add(new Rec(false, lastLogMs + 60_000, null, 0, 0, null));
        }
        tokens.sort(Comparator.comparingLong(Rec::logMs));
        requests.sort(Comparator.comparingLong(Rec::logMs));
        return oracle;
    }

    /**
     * Avro bytes of the outputs, so "the same" means byte for byte; without the wire format's first
     * five bytes (magic byte and schema id), since each run has its own registry, which numbers
     * schemas in the order they were first used.
     */
    private static final class Serde {
        private final Fixture f;

        Serde(Fixture f) {
            this.f = f;
        }

        String window(WindowStats w) {
            return body(f.serdes.value(WindowStats.class).serializer().serialize(f.config.topics().windowStats(), w));
        }

        String verdict(RequestVerdict v) {
            return body(f.serdes.value(RequestVerdict.class).serializer().serialize(f.config.topics().verdicts(), v));
        }

        private static String body(byte[] wire) {
            return wire == null ? "null" : Base64.getEncoder().encodeToString(Arrays.copyOfRange(wire, 5, wire.length));
        }
    }
}

package dev.goodput.assembly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.goodput.definitions.CostFormulas;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.WindowTotals;
import dev.goodput.assembly.time.LogClock;
import org.junit.jupiter.api.Test;

/** The partial aggregates' journal: what a restart adds up again is what the live aggregates held. */
class PartialAggregatesTest {

    private static final long WINDOW = 10_000_000;
    private static final long GRACE = 5_000_000;
    private static final String C = "c".repeat(64);

    private static MemoryByteStore store() {
        return new MemoryByteStore();
    }

    private static FinishedRequests finished(MemoryByteStore buckets, List<String> gone) {
        final LiveStore<FinishedRequests.Bucket> live = new LiveStore<>(buckets, FinishedRequests.CODEC);
        live.load();
        return new FinishedRequests(live, gone::add);
    }

    private static PartialAggregates partials(MemoryByteStore journal) {
        return new PartialAggregates(journal, WINDOW, GRACE, new long[] {LogClock.NONE, LogClock.NONE},
                finished(store(), new ArrayList<>()));
    }

    private static FinishedRequest ok(long completionUs, long ttftUs, long[] gaps, long[] gapTimes) {
        // live from its intended send; it held the watermark from its first gap's chunk, if any
        return new FinishedRequest("r" + completionUs, C, "s1", completionUs, completionUs - ttftUs - 900_000,
                gapTimes.length > 0 ? gapTimes[0] : completionUs, LogClock.NONE, 100, (int) (completionUs % 50),
                new WindowTotals.Outcome(WindowTotals.Status.OK, null,
                ttftUs, ttftUs, ttftUs + 900_000, 12_345.5, 20, 300, true, true, true), gaps, gapTimes);
    }

    /** Every window's record, encoded, in the order a heartbeat sends them. */
    private static List<String> sent(PartialAggregates p, long closableUs) {
        final List<String> out = new ArrayList<>();
        p.flush(closableUs, a -> out.add(a.startUs + " " + Arrays.toString(WindowAgg.CODEC.encode(a))));
        return out;
    }

    private static void fill(PartialAggregates p) {
        // a request whose gaps straddle two windows, a failed one, a refusal, and one in a later window
        p.add(ok(WINDOW + 200_000, 150_000, new long[] {40_000, 50_000, 60_000},
                new long[] {WINDOW - 100_000, WINDOW + 10_000, WINDOW + 100_000}));
        p.add(new FinishedRequest("failed", C, "s1", WINDOW + 300_000, WINDOW + 299_000, Long.MAX_VALUE, WINDOW + 400_000, 10, -1,
                new WindowTotals.Outcome(WindowTotals.Status.ERROR,
                "http_500", Definitions.UNDEFINED, Definitions.UNDEFINED, 1_000, Double.NaN, 0, 10, false, false, false),
                new long[0], new long[0]));
        p.refused(C, "s1", WINDOW + 400_000, "late");
        p.add(ok(3 * WINDOW + 1, 90_000, new long[] {30_000}, new long[] {3 * WINDOW}));
    }

    @Test
    void aRestartAddsUpWhatWasNotSentYet() {
        final MemoryByteStore journal = store();
        final PartialAggregates live = partials(journal);
        live.load();
        fill(live);
        assertThat(live.size()).isEqualTo(3);

        final MemoryByteStore copy = journal.snapshot();
        final PartialAggregates restored = partials(copy);
        restored.load();
        assertThat(sent(restored, Long.MAX_VALUE)).isEqualTo(sent(live, Long.MAX_VALUE)).hasSize(3);
    }

    @Test
    void sendingAWindowDropsItsEntriesAndKeepsTheOthers() {
        final MemoryByteStore journal = store();
        final PartialAggregates p = partials(journal);
        p.load();
        fill(p);
        // a watermark past the first two windows' end plus the grace, not the fourth's
        assertThat(sent(p, 2 * WINDOW + GRACE)).hasSize(2);
        final PartialAggregates restored = partials(journal);
        restored.load();
        assertThat(restored.size()).isEqualTo(1);
        // more for a window already sent (new entries, new keys) and for one kept
        p.add(ok(WINDOW + 500_000, 70_000, new long[0], new long[0]));
        p.add(ok(3 * WINDOW + 2, 80_000, new long[0], new long[0]));
        final PartialAggregates again = partials(journal);
        again.load();
        assertThat(sent(again, Long.MAX_VALUE)).isEqualTo(sent(p, Long.MAX_VALUE)).hasSize(2);
        assertThat(journal.size()).isZero();
    }

    private static void addRequests(PartialAggregates p, int from, int to) {
        for (int i = from; i < to; i++) {
            p.add(ok(WINDOW + 1_000 * i, 100_000 + i, new long[] {40_000 + i}, new long[] {WINDOW + 1_000 * i}));
        }
    }

    @Test
    void additionsShareEntriesAndARestartMidEntryGoesOnExactly() {
        final int n = 2 * PartialAggregates.BATCH + 3;
        final PartialAggregates uninterrupted = partials(store());
        uninterrupted.load();
        addRequests(uninterrupted, 0, n + 5);

        final MemoryByteStore journal = store();
        final PartialAggregates first = partials(journal);
        first.load();
        addRequests(first, 0, n);
        // one window: three entries, not one per addition
        assertThat(journal.size()).isEqualTo(3);
        final PartialAggregates restarted = partials(journal);
        restarted.load();
        addRequests(restarted, n, n + 5);
        final PartialAggregates again = partials(journal);
        again.load();
        final List<String> expected = sent(uninterrupted, Long.MAX_VALUE);
        assertThat(expected).hasSize(1);
        assertThat(sent(again, Long.MAX_VALUE)).isEqualTo(expected);
        assertThat(sent(restarted, Long.MAX_VALUE)).isEqualTo(expected);
    }

    /**
     * A finished request's id and the partition's log clocks ride in the entry its outcome is added
     * to: nothing else is written for them until the window is sent, and a restart reads both back.
     */
    @Test
    void finishedIdsAndTheClocksRideInTheEntriesUntilTheWindowIsSent() {
        final MemoryByteStore journal = store();
        final MemoryByteStore buckets = store();
        final List<String> gone = new ArrayList<>();
        final LiveStore<FinishedRequests.Bucket> bucketStore = new LiveStore<>(buckets, FinishedRequests.CODEC);
        bucketStore.load();
        final FinishedRequests finished = new FinishedRequests(bucketStore, gone::add);
        final long[] clocks = {1_000_000, 2_000_000};
        final PartialAggregates p = new PartialAggregates(journal, WINDOW, GRACE, clocks, finished);
        p.load();
        assertThat(p.writes()).isZero();
        p.add(ok(WINDOW + 200_000, 150_000, new long[0], new long[0]));
        assertThat(p.writes()).isOne();
        clocks[0] = 7_000_000;
        clocks[1] = 6_000_000;
        p.add(ok(3 * WINDOW + 5, 90_000, new long[0], new long[0]));
        assertThat(finished.contains("r" + (WINDOW + 200_000))).isTrue();
        assertThat(finished.contains("r" + (3 * WINDOW + 5))).isTrue();
        assertThat(buckets.size()).isZero();

        final MemoryByteStore copy = journal.snapshot();
        final FinishedRequests restoredIds = finished(store(), new ArrayList<>());
        final PartialAggregates restored = new PartialAggregates(copy, WINDOW, GRACE,
                new long[] {LogClock.NONE, LogClock.NONE}, restoredIds);
        restored.load();
        assertThat(restored.carriedClocks()).containsExactly(7_000_000, 6_000_000);
        assertThat(restoredIds.contains("r" + (WINDOW + 200_000))).isTrue();
        assertThat(restoredIds.contains("r" + (3 * WINDOW + 5))).isTrue();
        assertThat(restoredIds.contains("r1")).isFalse();

        // the first window is sent: its id goes into its bucket; the second's stays in its entry
        assertThat(p.flush(2 * WINDOW + GRACE, a -> { })).isTrue();
        bucketStore.writeBack();
        assertThat(buckets.size()).isEqualTo(1);
        assertThat(FinishedRequests.CODEC.decode(buckets.get(Long.toString((WINDOW + 200_000) / FinishedRequests.BUCKET_US))).ids)
                .containsExactly("r" + (WINDOW + 200_000));
        assertThat(p.flush(2 * WINDOW + GRACE, a -> { })).isFalse();
        // released into a bucket that expired meanwhile: gone at once, and said so
        finished.expire(4 * WINDOW);
        assertThat(gone).containsExactly("r" + (WINDOW + 200_000));
        assertThat(p.flush(Long.MAX_VALUE, a -> { })).isTrue();
        assertThat(gone).containsExactly("r" + (WINDOW + 200_000), "r" + (3 * WINDOW + 5));
        assertThat(finished.size()).isZero();
    }

    /** The charged seconds of every window sent, added up (the sink's rule: the window's live stretch). */
    private static double charged(PartialAggregates p) {
        final double[] sum = {0};
        p.flush(Long.MAX_VALUE, a -> {
            if (a.totals.hasLive()) {
                sum[0] += CostFormulas.chargedSeconds(a.startUs, a.startUs + WINDOW, a.totals.liveFromUs(), a.totals.liveToUs());
            }
        });
        return sum[0];
    }

    /**
     * A scenario of 15.6 s (a request every 100 ms, each live 1 s from its intended send, its first
     * chunk 200 ms in) is charged 15.6 s wherever the 10 s windows fall: the windows it fills in full,
     * the ones it touches for the part it used.
     */
    @Test
    void aScenarioIsChargedTheTimeItUsedWhereverTheWindowsFall() {
        for (long offset = 0; offset < WINDOW; offset += 100_000) {
            final PartialAggregates p = partials(store());
            p.load();
            for (int i = 0; i < 147; i++) {
                final long intended = 50 * WINDOW + offset + i * 100_000L;
                p.add(new FinishedRequest("r" + i, C, "s1", intended + 1_000_000, intended, intended + 200_000,
                        intended + 1_001_000, 32, 16,
                        new WindowTotals.Outcome(WindowTotals.Status.OK, null, 200_000, 200_000, 1_000_000, 40_000.0, 21, 0,
                                true, true, true), new long[] {40_000}, new long[] {intended + 240_000}));
            }
            assertThat(charged(p)).as("offset %d us", offset).isCloseTo(15.6, within(1e-9));
        }
    }

    /**
     * A request that waited longer than a window plus the grace for its first chunk is charged from
     * the first window no watermark can have closed: the stream could not know of it before.
     */
    @Test
    void aRequestUnseenUntilItsFirstChunkIsChargedFromTheFirstWindowSureToBeOpen() {
        final long intended = WINDOW + 9_000_000;
        final long firstChunk = 3 * WINDOW + 5_000_000;
        final long completion = 4 * WINDOW + 1_000_000;
        // its request event logged 2 s after it completed: windows ending after 38 s (43 s minus the grace) were open
        assertThat(liveWindows(intended, firstChunk, completion, completion + 2_000_000))
                .containsExactly(List.of(3 * WINDOW, WINDOW), List.of(4 * WINDOW, 1_000_000L));
        // its request event logged 40 s later: the chunk held the windows open from its own on
        assertThat(liveWindows(intended, firstChunk, completion, completion + 40_000_000))
                .containsExactly(List.of(3 * WINDOW, WINDOW), List.of(4 * WINDOW, 1_000_000L));
        // a first chunk soon after the send: charged from the send
        assertThat(liveWindows(intended, intended + 300_000, completion, completion + 2_000_000))
                .containsExactly(List.of(WINDOW, 1_000_000L), List.of(2 * WINDOW, WINDOW), List.of(3 * WINDOW, WINDOW),
                        List.of(4 * WINDOW, 1_000_000L));
        // nothing known of the request topic's clock: from the first chunk's window
        assertThat(liveWindows(intended, 2 * WINDOW + 1, completion, LogClock.NONE)).hasSize(3);
    }

    /** Each window's start and the length of its live stretch, for one request. */
    private static List<List<Long>> liveWindows(long intended, long firstChunk, long completion, long requestLogUs) {
        final PartialAggregates p = partials(store());
        p.load();
        p.add(new FinishedRequest("slow", C, "s1", completion, intended, firstChunk, requestLogUs, 10, 0,
                new WindowTotals.Outcome(WindowTotals.Status.OK, null, firstChunk - intended, firstChunk - intended,
                        completion - intended, 1_000.0, 2, 0, true, true, true), new long[0], new long[0]));
        final List<List<Long>> out = new ArrayList<>();
        p.flush(Long.MAX_VALUE, a -> out.add(List.of(a.startUs, a.totals.liveToUs() - a.totals.liveFromUs())));
        return out;
    }
}

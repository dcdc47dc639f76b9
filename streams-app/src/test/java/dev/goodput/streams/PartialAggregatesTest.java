package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.WindowTotals;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/** The partial aggregates' journal: what a restart adds up again is what the live aggregates held. */
class PartialAggregatesTest {

    private static final long WINDOW = 10_000_000;
    private static final long GRACE = 5_000_000;
    private static final String C = "c".repeat(64);

    private static KeyValueStore<String, byte[]> store() {
        final KeyValueStore<String, byte[]> s = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("p"),
                Serdes.String(), Serdes.ByteArray()).withLoggingDisabled().build();
        s.init(new MockProcessorContext<>().getStateStoreContext(), s);
        return s;
    }

    private static Sample.Request ok(long completionUs, long ttftUs, long[] gaps, long[] gapTimes) {
        return new Sample.Request(0, 0, C, "s1", completionUs, new WindowTotals.Outcome(WindowTotals.Status.OK, null,
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
        p.add(new Sample.Request(0, 0, C, "s1", WINDOW + 300_000, new WindowTotals.Outcome(WindowTotals.Status.ERROR,
                "http_500", Definitions.UNDEFINED, Definitions.UNDEFINED, 1_000, Double.NaN, 0, 10, false, false, false),
                new long[0], new long[0]));
        p.refused(C, "s1", WINDOW + 400_000, "late");
        p.add(ok(3 * WINDOW + 1, 90_000, new long[] {30_000}, new long[] {3 * WINDOW}));
    }

    @Test
    void aRestartAddsUpWhatWasNotSentYet() {
        final KeyValueStore<String, byte[]> journal = store();
        final PartialAggregates live = new PartialAggregates(journal, WINDOW, GRACE);
        live.load();
        fill(live);
        assertThat(live.size()).isEqualTo(3);

        final KeyValueStore<String, byte[]> copy = store();
        journal.all().forEachRemaining(kv -> copy.put(kv.key, kv.value));
        final PartialAggregates restored = new PartialAggregates(copy, WINDOW, GRACE);
        restored.load();
        assertThat(sent(restored, Long.MAX_VALUE)).isEqualTo(sent(live, Long.MAX_VALUE)).hasSize(3);
    }

    @Test
    void sendingAWindowDropsItsEntriesAndKeepsTheOthers() {
        final KeyValueStore<String, byte[]> journal = store();
        final PartialAggregates p = new PartialAggregates(journal, WINDOW, GRACE);
        p.load();
        fill(p);
        // a watermark past the first two windows' end plus the grace, not the fourth's
        assertThat(sent(p, 2 * WINDOW + GRACE)).hasSize(2);
        final PartialAggregates restored = new PartialAggregates(journal, WINDOW, GRACE);
        restored.load();
        assertThat(restored.size()).isEqualTo(1);
        // more for a window already sent (new entries, new keys) and for one kept
        p.add(ok(WINDOW + 500_000, 70_000, new long[0], new long[0]));
        p.add(ok(3 * WINDOW + 2, 80_000, new long[0], new long[0]));
        final PartialAggregates again = new PartialAggregates(journal, WINDOW, GRACE);
        again.load();
        assertThat(sent(again, Long.MAX_VALUE)).isEqualTo(sent(p, Long.MAX_VALUE)).hasSize(2);
        assertThat(journal.approximateNumEntries()).isZero();
    }

    private static void addRequests(PartialAggregates p, int from, int to) {
        for (int i = from; i < to; i++) {
            p.add(ok(WINDOW + 1_000 * i, 100_000 + i, new long[] {40_000 + i}, new long[] {WINDOW + 1_000 * i}));
        }
    }

    @Test
    void additionsShareEntriesAndARestartMidEntryGoesOnExactly() {
        final int n = 2 * PartialAggregates.BATCH + 3;
        final PartialAggregates uninterrupted = new PartialAggregates(store(), WINDOW, GRACE);
        uninterrupted.load();
        addRequests(uninterrupted, 0, n + 5);

        final KeyValueStore<String, byte[]> journal = store();
        final PartialAggregates first = new PartialAggregates(journal, WINDOW, GRACE);
        first.load();
        addRequests(first, 0, n);
        // one window: three entries, not one per addition
        assertThat(journal.approximateNumEntries()).isEqualTo(3);
        final PartialAggregates restarted = new PartialAggregates(journal, WINDOW, GRACE);
        restarted.load();
        addRequests(restarted, n, n + 5);
        final PartialAggregates again = new PartialAggregates(journal, WINDOW, GRACE);
        again.load();
        final List<String> expected = sent(uninterrupted, Long.MAX_VALUE);
        assertThat(expected).hasSize(1);
        assertThat(sent(again, Long.MAX_VALUE)).isEqualTo(expected);
        assertThat(sent(restarted, Long.MAX_VALUE)).isEqualTo(expected);
    }
}

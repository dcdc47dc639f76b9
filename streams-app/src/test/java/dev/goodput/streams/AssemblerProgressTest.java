package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.goodput.streams.time.LogClock;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/**
 * The log clocks are written here only when nothing written for the record carries them, and a
 * restart takes the highest clocks any entry carried: the same clocks as the run it resumes.
 */
class AssemblerProgressTest {
    private static final long WINDOW = 10_000_000;
    private static final long GRACE = 5_000_000;

    private static KeyValueStore<String, byte[]> store() {
        final KeyValueStore<String, byte[]> s = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("p"),
                Serdes.String(), Serdes.ByteArray()).withLoggingDisabled().build();
        s.init(new MockProcessorContext<>().getStateStoreContext(), s);
        return s;
    }

    private static AssemblerProgress over(KeyValueStore<String, byte[]> inner) {
        return new AssemblerProgress(new LiveStore<>(inner, WindowMerger.LONGS_CODEC), WINDOW, GRACE);
    }

    @Test
    void theClocksAreWrittenOnlyWhenNoEntryCarriesThemAndRestoredAsTheHighestCarried() {
        final KeyValueStore<String, byte[]> inner = store();
        final LiveStore<long[]> live = new LiveStore<>(inner, WindowMerger.LONGS_CODEC);
        final AssemblerProgress p = new AssemblerProgress(live, WINDOW, GRACE);
        assertThat(p.clocks()).containsExactly(LogClock.NONE, LogClock.NONE);

        // a record whose slot or journal entry carries the clocks: nothing written here
        p.token(1_000);
        p.save(true);
        assertThat(live.pending()).isFalse();
        // a record that writes no entry (a tick): the clocks are written here
        p.request(2_000);
        p.save(false);
        assertThat(live.pending()).isTrue();
        live.writeBack();
        assertThat(over(inner).clocks()).containsExactly(1_000_000, 2_000_000);
        // clocks that did not move are not written again
        p.token(500);
        p.save(false);
        assertThat(live.pending()).isFalse();

        // moved and carried elsewhere: a restart raises the stored clocks to the highest carried
        p.token(3_000);
        p.save(true);
        final AssemblerProgress restarted = over(inner);
        assertThat(restarted.clocks()).containsExactly(1_000_000, 2_000_000);
        restarted.carried(new long[] {2_500_000, LogClock.NONE});
        restarted.carried(new long[] {3_000_000, 1_500_000});
        restarted.carried(new long[] {LogClock.NONE, LogClock.NONE});
        assertThat(restarted.clocks()).containsExactly(3_000_000, 2_000_000);
        assertThat(restarted.clock().both()).isEqualTo(2_000_000);

        // entries that carried them are deleted: the clocks are written here whether they moved or not
        p.saveClocks();
        live.writeBack();
        assertThat(over(inner).clocks()).containsExactly(3_000_000, 2_000_000);
    }
}

package dev.goodput.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.goodput.assembly.time.LogClock;
import org.junit.jupiter.api.Test;

/**
 * The log clocks are written here only when nothing written for the record carries them, and a
 * restart takes the highest clocks any entry carried: the same clocks as the run it resumes.
 */
class AssemblerProgressTest {
    private static final long WINDOW = 10_000_000;
    private static final long GRACE = 5_000_000;

    private static MemoryByteStore store() {
        return new MemoryByteStore();
    }

    private static AssemblerProgress over(MemoryByteStore inner) {
        return new AssemblerProgress(new LiveStore<>(inner, LiveStore.LONGS), WINDOW, GRACE);
    }

    @Test
    void theClocksAreWrittenOnlyWhenNoEntryCarriesThemAndRestoredAsTheHighestCarried() {
        final MemoryByteStore inner = store();
        final LiveStore<long[]> live = new LiveStore<>(inner, LiveStore.LONGS);
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

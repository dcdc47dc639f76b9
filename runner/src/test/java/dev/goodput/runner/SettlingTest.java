package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import dev.goodput.keys.Keys;
import org.junit.jupiter.api.Test;

class SettlingTest {

    private static final long QUIET = 3_000_000_000L;
    private static final Keys.Window A1 = new Keys.Window("c", "a", 0);
    private static final Keys.Window A2 = new Keys.Window("c", "a", 2_000_000);
    private static final Keys.Window B1 = new Keys.Window("c", "b", 0);

    /** The failure of a CI: a table that had seen nothing called the run settled, and the report lacked windows. */
    @Test
    void aTableThatSawNothingIsNotSettledWhileAScenarioMeasuredRequests() {
        final Settling s = new Settling(0);
        assertThat(s.settled(Set.of("a"), 60 * QUIET, QUIET)).isFalse();
        assertThat(s.missing(Set.of("b", "a"))).isEqualTo("no priced window of a, b");
        // a run that measured nothing (stopped in its warm-up) ends after the quiet spell, as before
        assertThat(s.settled(Set.of(), QUIET + 1, QUIET)).isTrue();
        assertThat(s.settled(Set.of(), QUIET, QUIET)).isFalse();
    }

    @Test
    void settledWhenEverySeenWindowIsPricedEveryScenarioHasOneAndNothingCameForTheQuietSpell() {
        final Settling s = new Settling(0);
        s.windowSeen(A1, 10);
        s.windowSeen(B1, 20);
        s.windowPriced(A1, 30);
        assertThat(s.missing(Set.of("a", "b"))).isEqualTo("1 window(s) of this run had not closed and been priced;"
                + " no priced window of b");
        assertThat(s.settled(Set.of("a", "b"), 100 * QUIET, QUIET)).as("b's window is not priced").isFalse();
        s.windowPriced(B1, 40);
        assertThat(s.settled(Set.of("a", "b"), 40 + QUIET, QUIET)).as("within the quiet spell").isFalse();
        assertThat(s.settled(Set.of("a", "b"), 41 + QUIET, QUIET)).isTrue();
        // a later window of a scenario already priced: open again until it is priced too
        s.windowSeen(A2, 50 + QUIET);
        assertThat(s.settled(Set.of("a", "b"), 100 * QUIET, QUIET)).isFalse();
        s.windowPriced(A2, 60 + QUIET);
        assertThat(s.settled(Set.of("a", "b"), 61 + 2 * QUIET, QUIET)).isTrue();
        assertThat(s.missing(Set.of("a", "b"))).isEmpty();
    }

    @Test
    void anyRecordStartsTheQuietSpellAgain() {
        final Settling s = new Settling(0);
        s.windowSeen(A1, 0);
        s.windowPriced(A1, 0);
        s.recordSeen(QUIET);
        assertThat(s.settled(Set.of("a"), QUIET + 1, QUIET)).isFalse();
        assertThat(s.settled(Set.of("a"), 2 * QUIET + 1, QUIET)).isTrue();
    }
}

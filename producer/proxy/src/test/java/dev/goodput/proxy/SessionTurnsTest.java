package dev.goodput.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Turns numbered per session in arrival order, with a bounded memory of sessions. */
class SessionTurnsTest {

    @Test
    void eachSessionCountsItsOwnTurnsAndAForgottenOneStartsAgain() {
        final SessionTurns t = new SessionTurns(2);
        final List<Integer> got = new ArrayList<>();
        for (String s : new String[] {"a", "b", "a", "a", "c", "b", "a"}) {
            got.add(t.next(s));
        }
        // b was the eldest when c came, so it was forgotten; a stayed in use
        assertThat(got).containsExactly(1, 1, 2, 3, 1, 1, 1);
        assertThat(t.next(null)).isNull();
        assertThat(ClientIds.usable("conv-1")).isEqualTo("conv-1");
        assertThat(ClientIds.usable("two words")).isNull();
        assertThat(ClientIds.usable("x".repeat(129))).isNull();
    }
}

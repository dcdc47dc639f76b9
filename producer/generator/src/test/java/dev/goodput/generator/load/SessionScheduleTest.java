package dev.goodput.generator.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.capture.RequestSpec;
import dev.goodput.definitions.Micros;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

/** How sessions go on: the next turn after the think time with the history, or an end and a new session. */
class SessionScheduleTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private static RequestSpec spec(SessionSchedule.Turn t, String prompt) {
        return new RequestSpec("r", "s", prompt, 10, "", 8, null, t.intendedUs(), false, t.history(), t.sessionId(), t.turn());
    }

    private static RequestEvent ended(long completionUs, RequestStatus status, int prompt, int output) {
        return RequestEvent.newBuilder(SampleRecords.request()).setStatus(status).setCompletionTimeUs(Micros.toInstant(completionUs))
                .setPromptTokens(prompt).setOutputTokens(output).build();
    }

    @Test
    void aSessionGoesOnWithItsHistoryThenItsUserStartsANewOne() throws InterruptedException {
        final SessionSchedule s = SessionSchedule.closed(new Scenario.Sessions(2, 1.0, 4096), 10, now.get(), 1, Long.MAX_VALUE,
                now::get, "g-");
        assertThat(s.next()).isEqualTo(now.get());
        final SessionSchedule.Turn first = s.current();
        assertThat(List.of(first.sessionId(), first.turn())).containsExactly("g-s0", 1);
        s.turnDone(spec(first, "q1"), ended(now.get() + 500_000, RequestStatus.OK, 10, 5), "a1");
        now.addAndGet(1_500_000);
        // intended when the think time after the answer ended, with the first turn in its history
        assertThat(s.next()).isEqualTo(1_001_500_000L);
        final SessionSchedule.Turn second = s.current();
        assertThat(List.of(second.sessionId(), second.turn(), second.history())).containsExactly("g-s0", 2, List.of("q1", "a1"));
        s.turnDone(spec(second, "q2"), ended(now.get() + 200_000, RequestStatus.OK, 25, 5), "a2");
        now.addAndGet(1_200_000);
        // its last turn: the user's next session
        assertThat(s.next()).isEqualTo(1_002_700_000L);
        assertThat(List.of(s.current().sessionId(), s.current().turn(), s.current().history())).containsExactly("g-s1", 1, List.of());
    }

    @Test
    void aFailedTurnOrAPromptPastTheContextEndsTheSession() throws InterruptedException {
        final SessionSchedule s = SessionSchedule.closed(new Scenario.Sessions(5, 0.0, 100), 10, now.get(), 2, Long.MAX_VALUE,
                now::get, "g-");
        s.next();
        final SessionSchedule.Turn a = s.current();
        s.next();
        final SessionSchedule.Turn b = s.current();
        s.turnDone(spec(a, "q"), ended(now.get() + 10, RequestStatus.ERROR, 10, 0), "");
        // 85 prompt tokens + 10 of answer + a question of 10 would be 105, past the context of 100
        s.turnDone(spec(b, "q"), ended(now.get() + 20, RequestStatus.OK, 85, 10), "a");
        now.addAndGet(1_000);
        s.next();
        final SessionSchedule.Turn c = s.current();
        s.next();
        final SessionSchedule.Turn d = s.current();
        assertThat(List.of(c.turn(), d.turn())).containsExactly(1, 1);
        assertThat(List.of(c.sessionId(), d.sessionId())).containsExactly("g-s2", "g-s3");
        assertThat(List.of(s.endedFailed.sum(), s.endedAtContext.sum())).containsExactly(1L, 1L);
    }

    @Test
    void anOpenLoopStartsASessionAtEachArrivalAndTakesADueTurnFirst() throws InterruptedException {
        final long t0 = now.get();
        final long[] arrivals = {t0, t0 + 10_000_000, Long.MAX_VALUE};
        final int[] i = {0};
        final SessionSchedule s = SessionSchedule.open(new Scenario.Sessions(3, 0.5, 4096), 10, () -> arrivals[i[0]++],
                Long.MAX_VALUE, now::get, "g-");
        assertThat(s.next()).isEqualTo(t0);
        s.turnDone(spec(s.current(), "q1"), ended(t0 + 1_000_000, RequestStatus.OK, 10, 5), "a1");
        now.set(t0 + 1_500_000);
        // the session's second turn, due at 1.5 s, before the next session's arrival at 10 s
        assertThat(s.next()).isEqualTo(t0 + 1_500_000);
        assertThat(s.current().turn()).isEqualTo(2);
        now.set(t0 + 10_000_000);
        assertThat(s.next()).isEqualTo(t0 + 10_000_000);
        assertThat(List.of(s.current().sessionId(), s.current().turn())).containsExactly("g-s1", 1);
    }
}

package dev.goodput.generator.load;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.capture.RequestSpec;
import dev.goodput.definitions.Micros;

/**
 * The turns of a session scenario ({@code turnsN}), each due when it is intended: a session's first
 * turn when it arrives (open loop: session arrivals from the scenario's arrival process) or when its
 * user is free (closed loop: one user per unit of concurrency), each next turn when the think time
 * after the answer to the one before has passed. A turn's prompt carries the session's history:
 * every earlier prompt and the answer the server gave it. A session ends after its turns, at a
 * turn that failed, or where its next prompt would not fit the context; in a closed loop its user
 * then starts a new one after the think time.
 *
 * <p>{@link #next} returns a turn's intended time once it is due (less a fraction of a millisecond,
 * so the dispatcher's own wait is the precise one), and {@link #current} names that turn; a turn
 * that becomes due earlier while it waits (an answer came) is taken first. Turns are added from the
 * HTTP threads ({@link #turnDone}), taken by the one dispatcher thread.
 */
final class SessionSchedule implements Schedule {

    /** One turn to send: its session, its number from 1, the history its prompt carries, when it is intended. */
    record Turn(String sessionId, int turn, List<String> history, long intendedUs) {
    }

    /** How early before a turn's time {@link #next} hands it over: the dispatcher then waits precisely. */
    private static final long EARLY_US = 500;

    private final Scenario.Sessions plan;
    private final int questionTokens;
    /** Open loop: when sessions arrive; null in a closed loop. */
    private final Schedule arrivals;
    private final long endUs;
    private final LongSupplier nowUs;
    private final String idPrefix;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition added = lock.newCondition();
    private final PriorityQueue<Turn> due = new PriorityQueue<>(Comparator.comparingLong(Turn::intendedUs)
            .thenComparing(Turn::sessionId));
    private long nextArrivalUs;
    private long sessionsStarted;
    private Turn current;
    /** Sessions that ended before their last turn: a turn failed, or the next prompt would not fit the context. */
    final LongAdder endedFailed = new LongAdder();
    final LongAdder endedAtContext = new LongAdder();

    private SessionSchedule(Scenario.Sessions plan, int questionTokens, Schedule arrivals, long endUs, LongSupplier nowUs,
                            String idPrefix) {
        this.plan = plan;
        this.questionTokens = questionTokens;
        this.arrivals = arrivals;
        this.endUs = endUs;
        this.nowUs = nowUs;
        this.idPrefix = idPrefix;
    }

    /** Closed loop: {@code users} sessions at a time, each user's first starting at {@code startUs}. */
    static SessionSchedule closed(Scenario.Sessions plan, int questionTokens, long startUs, int users, long endUs,
                                  LongSupplier nowUs, String idPrefix) {
        final SessionSchedule s = new SessionSchedule(plan, questionTokens, null, endUs, nowUs, idPrefix);
        for (int i = 0; i < users; i++) {
            s.due.add(s.first(startUs));
        }
        return s;
    }

    /** Open loop: a session arrives at each time of {@code arrivals}. */
    static SessionSchedule open(Scenario.Sessions plan, int questionTokens, Schedule arrivals, long endUs, LongSupplier nowUs,
                                String idPrefix) {
        final SessionSchedule s = new SessionSchedule(plan, questionTokens, arrivals, endUs, nowUs, idPrefix);
        s.nextArrivalUs = Long.MIN_VALUE; // taken from the arrivals at the first next()
        return s;
    }

    private Turn first(long atUs) {
        return new Turn(idPrefix + "s" + sessionsStarted++, 1, List.of(), atUs);
    }

    @Override
    public long next() throws InterruptedException {
        lock.lock();
        try {
            if (arrivals != null && nextArrivalUs == Long.MIN_VALUE) {
                nextArrivalUs = arrivals.next();
            }
            while (true) {
                final Turn head = due.peek();
                final boolean arrival = arrivals != null && (head == null || nextArrivalUs < head.intendedUs());
                final long at = arrival ? nextArrivalUs : head == null ? Long.MAX_VALUE : head.intendedUs();
                final long now = nowUs.getAsLong();
                if (at == Long.MAX_VALUE && arrivals != null) {
                    return Long.MAX_VALUE; // the arrival process has ended
                }
                if (at != Long.MAX_VALUE && (at - now <= EARLY_US || at >= endUs)) {
                    if (arrival) {
                        current = first(nextArrivalUs);
                        nextArrivalUs = arrivals.next();
                    } else {
                        current = due.poll();
                    }
                    return current.intendedUs();
                }
                // every user busy (closed loop), or the next turn not due yet: wait for it, or for an answer
                final long waitUs = at == Long.MAX_VALUE ? 50_000 : Math.min(50_000, at - now - EARLY_US);
                added.await(Math.max(1, waitUs), TimeUnit.MICROSECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The turn {@link #next} last returned. */
    Turn current() {
        return current;
    }

    /**
     * A turn ended: its session's next turn is due after the think time, with this turn's prompt and
     * answer in its history; or the session ends (its last turn, a failed turn, a next prompt past
     * the context: this turn's prompt as the server counted it, its answer and a new question), and
     * in a closed loop its user starts a new session after the think time.
     */
    void turnDone(RequestSpec spec, RequestEvent e, String answer) {
        if (spec.sessionId() == null) {
            return;
        }
        final boolean ok = e.getStatus() == RequestStatus.OK;
        final long readyUs = Micros.of(e.getCompletionTimeUs()) + Math.round(plan.thinkS() * 1e6);
        Turn next = null;
        if (ok && spec.turn() < plan.turns()) {
            if ((long) e.getPromptTokens() + e.getOutputTokens() + questionTokens <= plan.contextTokens()) {
                final List<String> history = new ArrayList<>(spec.history());
                history.add(spec.prompt());
                history.add(answer);
                next = new Turn(spec.sessionId(), spec.turn() + 1, List.copyOf(history), readyUs);
            } else {
                endedAtContext.increment();
            }
        } else if (!ok) {
            endedFailed.increment();
        }
        lock.lock();
        try {
            if (next != null) {
                due.add(next);
            } else if (arrivals == null) {
                due.add(first(readyUs));
            }
            added.signalAll();
        } finally {
            lock.unlock();
        }
    }
}

package dev.goodput.assembly.log;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Builds a partition's log from request plans as producers publish them: each chunk a token event
 * logged its publishing delay after it arrived, each request event logged its delay after completion,
 * copies where a plan has them; each topic in log-time order (the broker's append time), the two
 * interleaved at random, then, as a generator ends a run, ticks a window and its grace on, the
 * end-of-run markers, and (when {@code expire}) ticks past the orphan expiry. With {@code runMs}
 * above 0, a request's chunks that arrived within the same {@code runMs} travel as one token event
 * (a {@link Event.Run}) logged when its last chunk would have been, as the producers' sinks send them.
 */
public final class Logs {

    /** What happens to a request in the log. */
    public enum Kind { NORMAL, ORPHAN, WARMUP, UNKNOWN_CONTRACT }

    /**
     * One request: its chunks, when it started, the gap between chunks, the publishing delays of its
     * token events and its request event, a chunk published twice (-1: none), its request event
     * published twice.
     */
    public record Plan(int chunks, long startMs, long gapMs, long chunkDelayMs, long requestDelayMs, int copiedChunk,
                       boolean copiedRequest, Kind kind) {
    }

    private Logs() {
    }

    /** Gathers each request's chunks that arrived in the same {@code runMs} into one run, logged with its last. */
    private static void runs(List<Event> tokens, long runMs) {
        final Map<String, List<Event.ChunkEvent>> byRun = new LinkedHashMap<>();
        for (Event e : tokens) {
            final Event.ChunkEvent c = (Event.ChunkEvent) e;
            byRun.computeIfAbsent(c.requestId() + "/" + Math.floorDiv(c.arrivalUs() / 1_000, runMs), k -> new ArrayList<>()).add(c);
        }
        tokens.clear();
        for (List<Event.ChunkEvent> run : byRun.values()) {
            final long log = run.stream().mapToLong(Event.ChunkEvent::logMs).max().orElseThrow();
            final List<Event.ChunkEvent> stamped = new ArrayList<>(run.size());
            for (Event.ChunkEvent c : run) {
                stamped.add(new Event.ChunkEvent(log, c.requestId(), c.contractId(), c.scenarioId(), c.index(), c.arrivalUs(),
                        c.warmup()));
            }
            tokens.add(new Event.Run(log, stamped));
        }
    }

    public static String id(int k) {
        return "r" + k;
    }

    public static long arrivalUs(Plan p, int i) {
        return (p.startMs() + (i + 1) * p.gapMs()) * 1_000;
    }

    public static long completionUs(Plan p) {
        return arrivalUs(p, Math.max(0, p.chunks() - 1)) + 1_000;
    }

    public static List<Event> build(List<Plan> plans, long interleaving, boolean expire) {
        return build(plans, interleaving, expire, 0);
    }

    public static List<Event> build(List<Plan> plans, long interleaving, boolean expire, long runMs) {
        final List<Event> tokens = new ArrayList<>();
        final List<Event> requests = new ArrayList<>();
        for (int k = 0; k < plans.size(); k++) {
            final Plan p = plans.get(k);
            final String contract = p.kind() == Kind.UNKNOWN_CONTRACT ? "zz" : "c" + (1 + k % 2);
            final boolean warmup = p.kind() == Kind.WARMUP;
            for (int i = 0; i < p.chunks(); i++) {
                final long arrival = arrivalUs(p, i);
                final Event.ChunkEvent c = new Event.ChunkEvent(arrival / 1_000 + p.chunkDelayMs(), id(k), contract,
                        "s" + k % 3, i, arrival, warmup);
                tokens.add(c);
                if (i == p.copiedChunk()) {
                    tokens.add(new Event.ChunkEvent(c.logMs() + 100, id(k), contract, c.scenarioId(), i, arrival, warmup));
                }
            }
            if (p.kind() != Kind.ORPHAN) {
                final TestRequest r = new TestRequest(id(k), contract, "s" + k % 3, completionUs(p), p.chunks(), warmup);
                final long log = completionUs(p) / 1_000 + p.requestDelayMs();
                requests.add(new Event.RequestEvent(log, r));
                if (p.copiedRequest()) {
                    requests.add(new Event.RequestEvent(log + 50, r));
                }
            }
        }
        if (runMs > 0) {
            runs(tokens, runMs);
        }
        tokens.sort(Comparator.comparingLong(Event::logMs));
        requests.sort(Comparator.comparingLong(Event::logMs));
        final List<Event> log = new ArrayList<>(tokens.size() + requests.size() + 6);
        final Random random = new Random(interleaving);
        int t = 0;
        int r = 0;
        while (t < tokens.size() || r < requests.size()) {
            if (r == requests.size() || t < tokens.size() && random.nextBoolean()) {
                log.add(tokens.get(t++));
            } else {
                log.add(requests.get(r++));
            }
        }
        final long last = log.stream().mapToLong(Event::logMs).max().orElse(0);
        final long windowAndGrace = (Driver.SETTINGS.windowUs() + Driver.SETTINGS.graceUs()) / 1_000;
        log.add(new Event.Control(true, last + windowAndGrace + 1_000, false));
        log.add(new Event.Control(false, last + windowAndGrace + 1_000, false));
        log.add(new Event.Control(true, last + windowAndGrace + 1_001, true));
        log.add(new Event.Control(false, last + windowAndGrace + 1_001, true));
        if (expire) {
            final long after = last + 2 * windowAndGrace + Driver.SETTINGS.orphanExpiryUs() / 1_000 + 2_000;
            log.add(new Event.Control(true, after, false));
            log.add(new Event.Control(false, after, false));
        }
        return log;
    }
}

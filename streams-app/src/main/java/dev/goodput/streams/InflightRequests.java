package dev.goodput.streams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.streams.time.LogClock;

/**
 * The requests a partition has seen events of but not finished: the store that survives a restart,
 * and, in memory, those whose request event is in but not all their chunks (the only ones a sweep
 * may finish, so a sweep never walks the whole store).
 */
final class InflightRequests {
    private final LiveStore<RequestState> store;
    private final Map<String, RequestState> waiting = new HashMap<>();

    InflightRequests(LiveStore<RequestState> store) {
        this.store = store;
    }

    /** Loads the store and finds the waiting requests in it. */
    void load() {
        store.load();
        for (Map.Entry<String, RequestState> e : store.entries().entrySet()) {
            if (e.getValue().requestBytes != null) {
                waiting.put(e.getKey(), e.getValue());
            }
        }
    }

    int size() {
        return store.size();
    }

    RequestState get(String id) {
        return store.get(id);
    }

    /** A request first seen through a token event. */
    void add(String id, RequestState s) {
        store.put(id, s);
    }

    /** A request whose state changed in place (the store writes it back). */
    void touch(String id) {
        store.touch(id);
    }

    /** A request whose request event is in and which waits for chunks. */
    void await(String id, RequestState s) {
        store.put(id, s);
        waiting.put(id, s);
    }

    void forget(String id) {
        store.remove(id);
        waiting.remove(id);
    }

    /**
     * The waiting requests whose missing chunks can no longer come on time (their chunks all arrived
     * by their completion, so any still to come is late on the token log), in id order so that a
     * replay emits the same records in the same order.
     */
    List<Map.Entry<String, RequestState>> due(LogClock clock, long tokenLogUs) {
        final List<Map.Entry<String, RequestState>> due = new ArrayList<>();
        for (Map.Entry<String, RequestState> e : waiting.entrySet()) {
            if (clock.late(e.getValue().completionUs, tokenLogUs)) {
                due.add(e);
            }
        }
        due.sort(Map.Entry.comparingByKey());
        return due;
    }

    /** Requests whose token events stopped {@code expiryUs} of log time ago without a request event. */
    List<String> orphans(long logUs, long expiryUs) {
        final List<String> orphans = new ArrayList<>();
        for (Map.Entry<String, RequestState> e : store.entries().entrySet()) {
            final RequestState s = e.getValue();
            if (s.requestBytes == null && s.lastChunkLogUs + expiryUs <= logUs) {
                orphans.add(e.getKey());
            }
        }
        return orphans;
    }

    /** The earliest on-time event of any request in flight ({@link RequestState#hold}), or Long.MAX_VALUE. */
    long hold() {
        long hold = Long.MAX_VALUE;
        for (RequestState s : store.entries().values()) {
            final long h = s.hold();
            if (h < hold) {
                hold = h;
            }
        }
        return hold;
    }
}

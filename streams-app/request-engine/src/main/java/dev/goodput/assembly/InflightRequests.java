package dev.goodput.assembly;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import dev.goodput.assembly.time.LogClock;

/**
 * The requests a partition has seen events of but not finished: the store that survives a restart,
 * and, in memory, those whose request event is in but not all their chunks (the only ones a sweep
 * may finish, so a sweep never walks the whole store).
 *
 * <p>The store is keyed by slot, not by request id: a request takes a free slot when its first event
 * comes and frees it when it finishes, and the next request to start takes it again. Keyed by id,
 * each request left a tombstone in the changelog at the next commit (and a key to insert and remove
 * in the store's maps); a slot that changes hands between two commits is one changelog record, so a
 * commit writes about as many records as requests are in flight, not as many as finished. The id
 * travels in the state ({@link RequestState#id}); a free slot holds {@link RequestState#FREE}.
 */
final class InflightRequests {
    private final LiveStore<RequestState> store;
    private final Map<String, RequestState> byId = new HashMap<>();
    private final Map<String, RequestState> waiting = new HashMap<>();
    private final ArrayDeque<String> free = new ArrayDeque<>();
    /** Free slots whose stored state is still that of a finished request: by that request's id, and back. */
    private final Map<String, String> staleSlotById = new HashMap<>();
    private final Map<String, String> staleIdBySlot = new HashMap<>();
    /** The highest log clocks the loaded entries carried ({@link RequestState#carriedClocks}). */
    private final long[] carried = {LogClock.NONE, LogClock.NONE};
    /** Slots made so far; the next new one is numbered this. */
    private long slots;
    /** The last {@link #get}: the id asked for (compared by reference) and the state found. */
    private String lastId;
    private RequestState lastFound;

    InflightRequests(LiveStore<RequestState> store) {
        this.store = store;
    }

    /**
     * Loads the store and finds the requests, the waiting ones and the free slots in it; a slot whose
     * state belongs to a request in {@code finished} is free.
     */
    void load(Predicate<String> finished) {
        store.load();
        lastId = null;
        lastFound = null;
        byId.clear();
        waiting.clear();
        free.clear();
        staleSlotById.clear();
        staleIdBySlot.clear();
        carried[0] = LogClock.NONE;
        carried[1] = LogClock.NONE;
        slots = 0;
        final List<String> keys = new ArrayList<>(store.entries().keySet());
        keys.sort(null); // the free slots in a fixed order, whatever the map's
        for (String slot : keys) {
            slots = Math.max(slots, Long.parseLong(slot, Character.MAX_RADIX) + 1);
            final RequestState s = store.get(slot);
            carried[0] = Math.max(carried[0], s.carriedClocks[0]);
            carried[1] = Math.max(carried[1], s.carriedClocks[1]);
            if (s.isFree()) {
                free.add(slot);
                continue;
            }
            if (finished.test(s.id)) {
                free.add(slot);
                stale(s.id, slot);
                continue;
            }
            s.stored = true;
            s.slot = slot;
            byId.put(s.id, s);
            if (s.requestBytes != null) {
                waiting.put(s.id, s);
            }
        }
    }

    int size() {
        return byId.size();
    }

    /** The highest log clocks (token, request) the loaded entries carried. */
    long[] carriedClocks() {
        return carried.clone();
    }

    /**
     * The request in flight under {@code id}, or null. The chunks of a run all ask with the run's own
     * key, one string: the last answer is kept for it while that request stays in flight (its slot
     * set), so a run of 50 chunks costs one map lookup, not 50.
     */
    RequestState get(String id) {
        final RequestState last = lastFound;
        if (id == lastId && last != null && last.slot != null) {
            return last;
        }
        final RequestState s = byId.get(id);
        lastId = id;
        lastFound = s;
        return s;
    }

    /** A request first seen through a token event. */
    void add(String id, RequestState s) {
        place(id, s);
    }

    /** A request whose state changed in place (the store writes it back). */
    void touch(String id) {
        store.touch(byId.get(id).slot);
    }

    /** A request whose request event is in and which waits for chunks. */
    void await(String id, RequestState s) {
        if (s.slot == null) {
            place(id, s);
        } else {
            store.put(s.slot, s);
        }
        waiting.put(id, s);
    }

    private void place(String id, RequestState s) {
        s.id = id;
        if (free.isEmpty()) {
            s.slot = Long.toString(slots++, Character.MAX_RADIX);
        } else {
            s.slot = free.poll();
            final String previous = staleIdBySlot.remove(s.slot);
            if (previous != null) {
                staleSlotById.remove(previous);
            }
        }
        byId.put(id, s);
        store.put(s.slot, s);
    }

    /** A request forgotten unfinished (refused, warm-up, an orphan): its slot is written free. */
    void forget(String id) {
        final RequestState s = byId.remove(id);
        if (s == null) {
            return;
        }
        waiting.remove(id);
        store.put(s.slot, RequestState.FREE);
        free.add(s.slot);
        s.slot = null;
    }

    /**
     * A request that finished, its id now among the finished ones: its slot is free, and the state
     * stored in it is left there when it is this request's (a restart sees the id is finished). A
     * state not stored yet is not written at all.
     */
    void finish(String id) {
        final RequestState s = byId.remove(id);
        if (s == null) {
            return;
        }
        waiting.remove(id);
        if (s.stored) {
            store.untouch(s.slot);
            stale(id, s.slot);
        } else {
            // the slot's stored entry (if any) is another request's or free: free it
            store.put(s.slot, RequestState.FREE);
        }
        free.add(s.slot);
        s.slot = null;
    }

    private void stale(String id, String slot) {
        staleSlotById.put(id, slot);
        staleIdBySlot.put(slot, id);
    }

    /** An id that left the finished set: a free slot still holding its request's state is written free. */
    void gone(String id) {
        final String slot = staleSlotById.remove(id);
        if (slot != null) {
            staleIdBySlot.remove(slot);
            store.put(slot, RequestState.FREE);
        }
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

    /**
     * Requests without a request event whose token events stopped {@code expiryUs} of log time ago,
     * or stopped at or before {@code endedUs} (a run's end: see {@link RequestEngine}); by id.
     */
    List<String> orphans(long logUs, long expiryUs, long endedUs) {
        final List<String> orphans = new ArrayList<>();
        for (Map.Entry<String, RequestState> e : byId.entrySet()) {
            final RequestState s = e.getValue();
            if (s.requestBytes == null && (s.lastChunkLogUs + expiryUs <= logUs || s.lastChunkLogUs <= endedUs)) {
                orphans.add(e.getKey());
            }
        }
        orphans.sort(null); // refused in one order, whatever the map's
        return orphans;
    }

    /** The earliest on-time event of any request in flight ({@link RequestState#hold}), or Long.MAX_VALUE. */
    long hold() {
        long hold = Long.MAX_VALUE;
        for (RequestState s : byId.values()) {
            final long h = s.hold();
            if (h < hold) {
                hold = h;
            }
        }
        return hold;
    }
}

package dev.goodput.assembly;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.WindowTotals;
import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.Varint;
import dev.goodput.assembly.time.LogClock;
import dev.goodput.keys.Keys;

/**
 * One partition's partial aggregates, by window: what its finished requests and refused records
 * add to each (contract, scenario, window) until a heartbeat sends them to the window's merger, so
 * one record travels per window and heartbeat instead of one per request.
 *
 * <p>The aggregates live in memory; the store holds what was added to them since they were last
 * sent: additions (a request's outcome and gaps, a refusal), up to {@link #BATCH} of one window
 * to an entry that names its window once, at its head, under a short sequence number (the store's maps compare
 * keys, and a window key is some hundred bytes of shared prefix). Each addition is written as it is
 * made, so a commit always covers it ({@link LiveStore} says why that is exactly-once), and costs the
 * bytes of its entry rather than the window's six histograms; sending a window deletes its entries,
 * and a restart adds the entries up again.
 *
 * <p>An entry also carries what else the finishing record would have written: each request's id
 * (held in {@link FinishedRequests} until the window is sent, then released into its buckets) and,
 * at its end, the partition's log clocks as they were when it was written ({@link AssemblerProgress}).
 */
final class PartialAggregates {
    private static final byte REQUEST = 1;
    private static final byte GAPS = 2;
    private static final byte REFUSAL = 3;
    /** The entry's last item: the log clocks (token, request) when it was written. */
    private static final byte CLOCKS = 4;
    /** A stretch of a window before a request's completion in which the request was live. */
    private static final byte LIVE = 5;
    /** A request as {@link #REQUEST}, then where it became live in its completion's window. */
    private static final byte REQUEST_LIVE = 6;
    /** A request as {@link #REQUEST_LIVE}, then its prompt tokens and those served from the cache (-1: not said). */
    private static final byte REQUEST_CACHE = 7;
    /**
     * Additions one journal entry holds at most. Each addition rewrites its entry, and the store's
     * cache makes an entry's writes between two commits one changelog record, where an entry per
     * addition made two per request (the entry, then its tombstone once the window was sent) for the
     * commit to write. Sixteen keep the rewritten bytes to a few kilobytes.
     */
    static final int BATCH = 16;

    private final ByteStore journal;
    private final long windowUs;
    private final long graceUs;
    private final long[] clocks;
    private final FinishedRequests finished;
    /** The ids of finished requests each window's entries carry, with their completion times, by window key. */
    private final Map<String, Held> held = new HashMap<>();
    /** The highest log clocks the loaded entries carried. */
    private final long[] carried = {LogClock.NONE, LogClock.NONE};
    /** Entries written so far. */
    private long writes;
    private final Map<String, WindowAgg> live = new HashMap<>();
    /** The journal keys of each window's additions, by window key. */
    private final Map<String, List<String>> entries = new HashMap<>();
    /** Each window's journal entry still taking additions, by window key. */
    private final Map<String, Batch> open = new HashMap<>();
    /** The next journal key's number. */
    private long next;
    private Keys.Window lastWindow;
    private String lastKey;

    /**
     * @param clocks   the partition's log clocks, live ({@link AssemblerProgress#clocks}): each entry carries them
     * @param finished where the ids of the requests whose outcomes are added are held, then released
     */
    PartialAggregates(ByteStore journal, long windowUs, long graceUs, long[] clocks,
                      FinishedRequests finished) {
        this.journal = journal;
        this.windowUs = windowUs;
        this.graceUs = graceUs;
        this.clocks = clocks;
        this.finished = finished;
    }

    /** Adds up what the restored journal holds, and holds the ids its entries carry. */
    void load() {
        live.clear();
        entries.clear();
        open.clear();
        held.clear();
        carried[0] = LogClock.NONE;
        carried[1] = LogClock.NONE;
        lastWindow = null;
        next = 0;
        journal.forEach((journalKey, value) -> {
            next = Math.max(next, Long.parseLong(journalKey, Character.MAX_RADIX) + 1);
            final ByteBuffer in = ByteBuffer.wrap(value);
            final Keys.Window w = new Keys.Window(Varint.readString(in), Varint.readString(in), Varint.readLong(in));
            final String key = w.text();
            final WindowAgg a = live.computeIfAbsent(key, k -> new WindowAgg(w.contractId(), w.scenarioId(), w.startUs()));
            while (in.hasRemaining()) {
                apply(in, a, key, w.startUs());
            }
            entries.computeIfAbsent(key, k -> new ArrayList<>()).add(journalKey);
        });
    }

    int size() {
        return live.size();
    }

    /** The highest log clocks (token, request) the loaded entries carried. */
    long[] carriedClocks() {
        return carried.clone();
    }

    /** How many entries were written so far: each carried the clocks of its moment. */
    long writes() {
        return writes;
    }

    /**
     * Adds a finished request to the window of its completion, and each gap between its chunks to
     * the window of the later chunk. Every chunk here came on time (a late token event never joins),
     * and the request held its gaps' windows open until it finished, so each gap goes to its own window.
     */
    void add(FinishedRequest r) {
        final long start = Definitions.windowStart(r.completionUs(), windowUs);
        final Keys.Window own = new Keys.Window(r.contractId(), r.scenarioId(), start);
        final boolean ok = r.outcome().status() == WindowTotals.Status.OK;
        final long[] gaps = ok ? r.gapsUs() : new long[0];
        final long[] times = ok ? r.gapTimesUs() : new long[0];
        // the gaps of the completion's window go with the outcome; the others, by window, on their own
        Map<Long, List<Long>> elsewhere = null;
        final long[] here = new long[gaps.length];
        int inHere = 0;
        final long end = start + windowUs;
        for (int i = 0; i < gaps.length; i++) {
            // within the completion's window, as most gaps are, without a division per gap
            if (times[i] >= start && times[i] < end) {
                here[inHere++] = gaps[i];
            } else {
                final long gapStart = Definitions.windowStart(times[i], windowUs);
                if (elsewhere == null) {
                    elsewhere = new HashMap<>();
                }
                elsewhere.computeIfAbsent(gapStart, k -> new ArrayList<>()).add(gaps[i]);
            }
        }
        final long from = liveFrom(r);
        for (long w = Definitions.windowStart(from, windowUs); w < start; w += windowUs) {
            final Batch before = batch(new Keys.Window(r.contractId(), r.scenarioId(), w));
            before.bytes.write(LIVE);
            Varint.writeLong(before.bytes, Math.max(w, from) - w);
            written(before).totals.live(Math.max(w, from), w + windowUs);
        }
        final Batch b = batch(own);
        b.bytes.write(REQUEST_CACHE);
        Varint.writeString(b.bytes, r.requestId());
        Varint.writeLong(b.bytes, r.completionUs() - start);
        JournalLayout.writeOutcome(b.bytes, r.outcome(), here, inHere);
        final long liveHere = Math.max(start, from);
        Varint.writeLong(b.bytes, r.completionUs() - liveHere);
        Varint.writeLong(b.bytes, r.promptTokens());
        Varint.writeLong(b.bytes, r.cachedTokens());
        hold(b.windowKey, r.requestId(), r.completionUs());
        final WindowAgg a = written(b);
        a.totals.add(r.outcome());
        a.totals.live(liveHere, r.completionUs());
        if (r.cachedTokens() >= 0) {
            a.totals.cache(r.promptTokens(), r.cachedTokens());
        }
        for (int i = 0; i < inHere; i++) {
            a.totals.addGap(here[i]);
        }
        if (elsewhere != null) {
            elsewhere.forEach((gapStart, g) -> {
                final Keys.Window w = new Keys.Window(r.contractId(), r.scenarioId(), gapStart);
                final Batch other = batch(w);
                other.bytes.write(GAPS);
                JournalLayout.writeGaps(other.bytes, g);
                g.forEach(written(other).totals::addGap);
            });
        }
    }

    /**
     * Where a request's live stretch starts in the windows: its intended send, but not in a window a
     * watermark may have closed while the stream could not know of the request. Open for sure are
     * the windows from that of the earliest time it held the watermark at (its first chunk), and
     * those whose end plus the grace is past both that time and the request topic's log clock when
     * its request event came (no watermark so far passed either). Both are read from the data, so a
     * replay charges the same. Never after its completion.
     */
    private long liveFrom(FinishedRequest r) {
        final long held = Math.min(r.holdUs(), r.completionUs());
        long open = Definitions.windowStart(held, windowUs);
        if (r.requestLogUs() != LogClock.NONE) {
            open = Math.min(open, Definitions.windowStart(Math.max(held, r.requestLogUs()) - graceUs, windowUs));
        }
        return Math.min(r.completionUs(), Math.max(r.intendedUs(), open));
    }

    /**
     * Counts a refused record in the window of its log time: the window records say what was refused
     * while they were open. That window is open, since no watermark passes the clock of the record's own topic.
     */
    void refused(String contractId, String scenarioId, long logUs, String reason) {
        final Keys.Window w = new Keys.Window(contractId, scenarioId, Definitions.windowStart(logUs, windowUs));
        final Batch b = batch(w);
        b.bytes.write(REFUSAL);
        Varint.writeString(b.bytes, reason);
        written(b).totals.refused(reason, "late".equals(reason));
    }

    /**
     * The journal entry of window {@code w} that takes the next addition, its window written at its
     * head when it is new. The caller appends one addition to its bytes, then calls {@link #written}.
     */
    private Batch batch(Keys.Window w) {
        // consecutive requests mostly finish in the same window: its key text is built once
        if (!w.equals(lastWindow)) {
            lastWindow = w;
            lastKey = w.text();
        }
        Batch b = open.get(lastKey);
        if (b == null || b.count == BATCH) {
            b = new Batch(Long.toString(next++, Character.MAX_RADIX), w, lastKey);
            Varint.writeString(b.bytes, w.contractId());
            Varint.writeString(b.bytes, w.scenarioId());
            Varint.writeLong(b.bytes, w.startUs());
            open.put(lastKey, b);
            entries.computeIfAbsent(lastKey, k -> new ArrayList<>()).add(b.key);
        }
        return b;
    }

    /**
     * Writes the entry {@link #batch} gave, with the addition just appended, to the journal; returns
     * its window's live aggregate, to which the caller adds the addition (from the objects at hand: a
     * restart adds the same from the entry, {@link #apply}).
     */
    private WindowAgg written(Batch b) {
        b.count++;
        // the clocks go at the end of the stored copy only: the next addition goes where they were
        final int size = b.bytes.size();
        b.bytes.write(CLOCKS);
        Varint.writeLong(b.bytes, clocks[0]);
        Varint.writeLong(b.bytes, clocks[1]);
        journal.put(b.key, b.bytes.toByteArray());
        b.bytes.truncate(size);
        writes++;
        return live.computeIfAbsent(b.windowKey,
                k -> new WindowAgg(b.window.contractId(), b.window.scenarioId(), b.window.startUs()));
    }

    private void hold(String windowKey, String id, long completionUs) {
        finished.hold(id);
        held.computeIfAbsent(windowKey, k -> new Held()).add(id, completionUs);
    }

    /**
     * Hands over (and drops) the partials of windows that {@code closableUs} (the watermark about to be
     * sent) may close, or all of them with {@code Long.MAX_VALUE}; in key order, so a replay sends the
     * same records in the same order. The ids their entries held are released into the finished
     * requests' buckets. Returns whether any entry was deleted.
     */
    boolean flush(long closableUs, Consumer<WindowAgg> send) {
        if (live.isEmpty()) {
            return false;
        }
        boolean deleted = false;
        final List<String> keys = new ArrayList<>(live.keySet());
        keys.sort(null);
        for (String key : keys) {
            final WindowAgg a = live.get(key);
            if (closableUs != Long.MAX_VALUE && a.startUs + windowUs + graceUs > closableUs) {
                continue;
            }
            send.accept(a);
            live.remove(key);
            open.remove(key);
            final List<String> journalKeys = entries.remove(key);
            if (journalKeys != null) {
                journalKeys.forEach(journal::delete);
                deleted = true;
            }
            final Held ids = held.remove(key);
            if (ids != null) {
                for (int i = 0; i < ids.size; i++) {
                    finished.release(ids.ids[i], ids.completionsUs[i]);
                }
            }
        }
        return deleted;
    }

    /** Ids of finished requests and their completion times, in the order they were added. */
    private static final class Held {
        String[] ids = new String[16];
        long[] completionsUs = new long[16];
        int size;

        void add(String id, long completionUs) {
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, size * 2);
                completionsUs = Arrays.copyOf(completionsUs, size * 2);
            }
            ids[size] = id;
            completionsUs[size++] = completionUs;
        }
    }

    /** A journal entry taking additions: its window, then each addition (its type, then its fields). */
    private static final class Batch {
        final String key;
        final Keys.Window window;
        final String windowKey;
        final ByteSink bytes = new ByteSink(512);
        int count;

        Batch(String key, Keys.Window window, String windowKey) {
            this.key = key;
            this.window = window;
            this.windowKey = windowKey;
        }
    }

    /** Adds one addition of a journal entry, as a restart reads it, to its window's live aggregate. */
    private void apply(ByteBuffer in, WindowAgg a, String windowKey, long startUs) {
        final byte type = in.get();
        switch (type) {
            case REQUEST, REQUEST_LIVE, REQUEST_CACHE -> {
                final String id = Varint.readString(in);
                final long completionUs = startUs + Varint.readLong(in);
                hold(windowKey, id, completionUs);
                JournalLayout.readOutcome(in, a.totals);
                if (type != REQUEST) {
                    a.totals.live(completionUs - Varint.readLong(in), completionUs);
                }
                if (type == REQUEST_CACHE) {
                    final int prompt = (int) Varint.readLong(in);
                    final int cached = (int) Varint.readLong(in);
                    if (cached >= 0) {
                        a.totals.cache(prompt, cached);
                    }
                }
            }
            case GAPS -> JournalLayout.readGaps(in, a.totals);
            case LIVE -> {
                final long from = startUs + Varint.readLong(in);
                a.totals.live(from, startUs + windowUs);
            }
            case REFUSAL -> {
                final String reason = Varint.readString(in);
                a.totals.refused(reason, "late".equals(reason));
            }
            case CLOCKS -> {
                carried[0] = Math.max(carried[0], Varint.readLong(in));
                carried[1] = Math.max(carried[1], Varint.readLong(in));
            }
            default -> throw new IllegalStateException("partial aggregate journal entry of unknown type " + type
                    + ": written by another build; reset the application's state (docs/operations.md)");
        }
    }
}

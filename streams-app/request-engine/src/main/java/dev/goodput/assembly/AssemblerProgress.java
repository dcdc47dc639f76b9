package dev.goodput.assembly;

import dev.goodput.assembly.time.LogClock;

/**
 * How far one assembler partition has come, kept so a restart resumes exactly: its two log clocks
 * ({@link LogClock}: token topic, request topic) and the last watermark it sent.
 *
 * <p>The clocks are carried by the entries a record writes anyway: each in-flight slot and each
 * partial-aggregate journal entry is written with the clocks as they are then ({@link #clocks}), and a
 * restart takes the highest clocks any entry carries ({@link #carried}: the clocks only move forward,
 * so the highest is the last written). Only a record that writes no such entry writes the clocks here
 * ({@link #save}), and so does a heartbeat that deletes journal entries ({@link #saveClocks}), since
 * the entries it deletes may be the ones that carried the latest clocks. Two writes a request fewer
 * than a clocks entry written by every record.
 */
final class AssemblerProgress {
    private static final String LAST_WATERMARK = "last-watermark";
    private static final String LOG_CLOCKS = "log-clocks";
    private static final String END_OF_RUN = "end-of-run";

    private final LiveStore<long[]> store;
    private final long[] clocks;
    private final LogClock clock;
    private long lastWatermark = Long.MIN_VALUE;
    private boolean clocksMoved;
    /** Log times (token, request) of the last end-of-run markers read. */
    private final long[] endOfRun;

    AssemblerProgress(LiveStore<long[]> store, long windowUs, long graceUs) {
        this.store = store;
        store.load();
        final long[] last = store.get(LAST_WATERMARK);
        if (last != null) {
            lastWatermark = last[0];
        }
        final long[] restored = store.get(LOG_CLOCKS);
        this.clocks = restored != null && restored.length == 2 ? restored.clone() : new long[] {LogClock.NONE, LogClock.NONE};
        this.clock = new LogClock(windowUs, graceUs, clocks[0], clocks[1]);
        final long[] ended = store.get(END_OF_RUN);
        this.endOfRun = ended != null && ended.length == 2 ? ended.clone() : new long[] {LogClock.NONE, LogClock.NONE};
    }

    /**
     * An end-of-run marker on the token topic ({@code token}) or the request topic at log time
     * {@code logUs}: kept, so a restart between the markers and the sweep they allow still knows them.
     */
    void endOfRun(boolean token, long logUs) {
        endOfRun[token ? 0 : 1] = logUs;
        store.put(END_OF_RUN, endOfRun.clone());
    }

    /** The log time by which both topics had an end-of-run marker (the later of the two), or {@link LogClock#NONE}. */
    long ended() {
        return endOfRun[0] == LogClock.NONE || endOfRun[1] == LogClock.NONE ? LogClock.NONE
                : Math.min(endOfRun[0], endOfRun[1]);
    }

    LogClock clock() {
        return clock;
    }

    /**
     * The clocks (token, request), live: what an entry written now carries. Entries read them when
     * they are written; nothing else may change them.
     */
    long[] clocks() {
        return clocks;
    }

    /** Clocks (token, request) a restored entry carried: the clocks move up to them. */
    void carried(long[] entry) {
        if (entry[0] != LogClock.NONE) {
            kept(0, clock.token(entry[0] / 1_000));
        }
        if (entry[1] != LogClock.NONE) {
            kept(1, clock.request(entry[1] / 1_000));
        }
        clocksMoved = false;
    }

    /** A token record's log time moves the token clock; returns the clock. */
    long token(long timestampMs) {
        return kept(0, clock.token(timestampMs));
    }

    /** A request record's log time moves the request clock; returns the clock. */
    long request(long timestampMs) {
        return kept(1, clock.request(timestampMs));
    }

    private long kept(int topic, long us) {
        if (us != clocks[topic]) {
            clocks[topic] = us;
            clocksMoved = true;
        }
        return us;
    }

    /**
     * At the end of a record: writes the clocks here if they moved and no entry written for the
     * record carries them ({@code carried}), once per record whatever the chunks of its run.
     */
    void save(boolean carried) {
        if (clocksMoved && !carried) {
            store.put(LOG_CLOCKS, clocks);
        }
        clocksMoved = false;
    }

    /** Writes the clocks here whether they moved or not: entries that carried them are being deleted. */
    void saveClocks() {
        store.put(LOG_CLOCKS, clocks);
    }

    long lastWatermark() {
        return lastWatermark;
    }

    /** Records a watermark to send; false when it does not move past the last one sent. */
    boolean advance(long wm) {
        if (wm == Long.MIN_VALUE || wm <= lastWatermark) {
            return false;
        }
        lastWatermark = wm;
        store.put(LAST_WATERMARK, new long[] {wm});
        return true;
    }

    @Override
    public String toString() {
        return "token log time " + clocks[0] + ", request log time " + clocks[1];
    }
}

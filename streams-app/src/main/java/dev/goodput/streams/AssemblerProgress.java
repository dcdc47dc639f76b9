package dev.goodput.streams;

import dev.goodput.streams.time.LogClock;

/**
 * How far one assembler partition has come, kept in its progress store so a restart resumes exactly:
 * its two log clocks ({@link LogClock}: token topic, request topic) and the last watermark it sent.
 */
final class AssemblerProgress {
    private static final String LAST_WATERMARK = "last-watermark";
    private static final String LOG_CLOCKS = "log-clocks";

    private final LiveStore<long[]> store;
    private final long[] clocks;
    private final LogClock clock;
    private long lastWatermark = Long.MIN_VALUE;
    private boolean clocksMoved;

    AssemblerProgress(LiveStore<long[]> store, long windowUs, long graceUs) {
        this.store = store;
        store.load();
        final long[] last = store.get(LAST_WATERMARK);
        if (last != null) {
            lastWatermark = last[0];
        }
        final long[] restored = store.get(LOG_CLOCKS);
        this.clocks = restored != null && restored.length == 2 ? restored : new long[] {LogClock.NONE, LogClock.NONE};
        this.clock = new LogClock(windowUs, graceUs, clocks[0], clocks[1]);
    }

    LogClock clock() {
        return clock;
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
     * Marks the clocks for the write-back that ends the record ({@link LiveStore#writeBack}) if they
     * moved: once per record, whatever the chunks of its run.
     */
    void save() {
        if (clocksMoved) {
            store.put(LOG_CLOCKS, clocks);
            clocksMoved = false;
        }
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

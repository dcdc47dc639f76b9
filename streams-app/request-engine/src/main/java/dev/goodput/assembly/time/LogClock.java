package dev.goodput.assembly.time;

/**
 * The event-time core of one input partition, in microseconds, framework-free (no Kafka class).
 *
 * <p>Every decision about time comes from data kept in the log, so it comes out the same live and
 * in every replay, whatever the wall clock, the heartbeat cadence, the batch size, the order in
 * which the two raw topics are interleaved, or the replay speed:
 * <ul>
 *   <li>Each raw topic's partition has a <em>log clock</em>: the running maximum of its records'
 *       timestamps (the broker's append time, the raw topics being on
 *       {@code message.timestamp.type=LogAppendTime}). A record's <em>log time</em> is that clock
 *       just after it, so it is a function of the partition's own log alone.</li>
 *   <li>An event is <em>late</em> when its log time has passed its window's end plus the grace
 *       ({@link #late}): a per-record rule. No other record can make it late, so one record dated
 *       in the future moves nothing (and is refused at the door anyway).</li>
 *   <li>The <em>watermark</em> a partition announces is the lower of its two log clocks, held back by
 *       the requests still in flight ({@link #watermark}). Any record still to come on the partition
 *       has a log time at or past its topic's clock, so it can only be on time for a window the
 *       watermark has not closed; requests in flight hold their own windows open.</li>
 * </ul>
 * The grace is therefore the allowance for publishing delay plus the clock difference between
 * the producers and the broker.
 */
public final class LogClock {

    /** No time yet. */
    public static final long NONE = Long.MIN_VALUE;

    private final long windowUs;
    private final long graceUs;
    private long tokenLogUs;
    private long requestLogUs;
    /**
     * The window {@link #late(long, long)} last placed an event in, [start, end): the chunks of a run
     * mostly share one, and placing each by a division cost a share of the stream thread.
     */
    private long lastWindowStartUs = Long.MAX_VALUE;
    private long lastWindowEndUs = Long.MIN_VALUE;

    public LogClock(long windowUs, long graceUs, long tokenLogUs, long requestLogUs) {
        if (windowUs <= 0 || graceUs < 0) {
            throw new IllegalArgumentException("window must be more than 0 and grace 0 or more");
        }
        this.windowUs = windowUs;
        this.graceUs = graceUs;
        this.tokenLogUs = tokenLogUs;
        this.requestLogUs = requestLogUs;
    }

    /** Advances the token topic's clock by a record's timestamp; returns that record's log time (us). */
    public long token(long recordTimestampMs) {
        final long us = recordTimestampMs * 1_000L;
        if (us > tokenLogUs) {
            tokenLogUs = us;
        }
        return tokenLogUs;
    }

    /** Advances the request topic's clock by a record's timestamp; returns that record's log time (us). */
    public long request(long recordTimestampMs) {
        final long us = recordTimestampMs * 1_000L;
        if (us > requestLogUs) {
            requestLogUs = us;
        }
        return requestLogUs;
    }

    public long tokenLogUs() {
        return tokenLogUs;
    }

    public long requestLogUs() {
        return requestLogUs;
    }

    /**
     * The log time both topics have reached: every record still to come has a log time at or past
     * it. {@link #NONE} until both topics have had a record: until then, the topic not yet read may
     * hold anything (a replay may read one topic far ahead of the other). The generators tick every
     * partition of both topics, so a partition without requests still gets both clocks.
     */
    public long both() {
        if (tokenLogUs == NONE || requestLogUs == NONE) {
            return NONE;
        }
        return Math.min(tokenLogUs, requestLogUs);
    }

    /**
     * True when an event at {@code eventUs} whose record has log time {@code logUs} missed its window:
     * {@link #late(long, long, long, long)}, with the window of the event before when it is the same.
     */
    public boolean late(long eventUs, long logUs) {
        if (eventUs < lastWindowStartUs || eventUs >= lastWindowEndUs) {
            lastWindowEndUs = windowEnd(eventUs, windowUs);
            lastWindowStartUs = lastWindowEndUs - windowUs;
        }
        return closed(lastWindowEndUs, graceUs, logUs);
    }

    /**
     * Lateness, the definition: an event is late when its record's log time is at or past the end
     * of the event's window plus the grace.
     */
    public static boolean late(long eventUs, long logUs, long windowUs, long graceUs) {
        return closed(windowEnd(eventUs, windowUs), graceUs, logUs);
    }

    /** A window ending at {@code windowEndUs} takes no event whose record's log time is at or past its end plus the grace. */
    private static boolean closed(long windowEndUs, long graceUs, long logUs) {
        return windowEndUs + graceUs <= logUs;
    }

    /** The end of the tumbling window holding {@code tUs} (windows are aligned to the epoch). */
    public static long windowEnd(long tUs, long windowUs) {
        return Math.floorDiv(tUs, windowUs) * windowUs + windowUs;
    }

    /**
     * The watermark this partition may announce: both log clocks, held back by the earliest event
     * time still in flight ({@code holdUs}, {@link Long#MAX_VALUE} when none). A window closes when
     * the watermark of every partition is at or past its end plus the grace.
     */
    public long watermark(long holdUs) {
        final long both = both();
        return both == NONE ? NONE : Math.min(both, holdUs);
    }

    /** True when a window starting at {@code startUs} is closed by {@code watermarkUs}. */
    public static boolean closes(long startUs, long windowUs, long graceUs, long watermarkUs) {
        return startUs + windowUs + graceUs <= watermarkUs;
    }
}

package dev.goodput.assembly.time;

import java.util.HashMap;
import java.util.Map;

/**
 * Closes windows on the slowest upstream partition: a window is closed once every upstream
 * partition's watermark is at or past its end plus the grace. Nothing closes until every upstream
 * partition has reported, since one that has not may still hold any window's events. Framework-free.
 */
public final class WindowCloser {

    private final int upstreams;
    private final long windowUs;
    private final long graceUs;
    private final Map<Integer, Long> watermarks = new HashMap<>();
    private long closedThroughUs = LogClock.NONE;

    public WindowCloser(int upstreams, long windowUs, long graceUs) {
        this.upstreams = upstreams;
        this.windowUs = windowUs;
        this.graceUs = graceUs;
    }

    /** Records an upstream partition's watermark; true when it moved the closing point forward. */
    public boolean observe(int upstream, long watermarkUs) {
        final Long previous = watermarks.get(upstream);
        if (previous != null && previous >= watermarkUs) {
            return false;
        }
        watermarks.put(upstream, watermarkUs);
        final long min = min();
        if (min > closedThroughUs) {
            closedThroughUs = min;
            return true;
        }
        return false;
    }

    private long min() {
        if (watermarks.size() < upstreams) {
            return LogClock.NONE;
        }
        long min = Long.MAX_VALUE;
        for (long w : watermarks.values()) {
            min = Math.min(min, w);
        }
        return min;
    }

    /** True when the window starting at {@code startUs} is closed. */
    public boolean closed(long startUs) {
        return LogClock.closes(startUs, windowUs, graceUs, closedThroughUs);
    }

    public long closedThroughUs() {
        return closedThroughUs;
    }

    /** The watermarks received, by upstream partition (for logs and restore). */
    public Map<Integer, Long> watermarks() {
        return Map.copyOf(watermarks);
    }
}

package dev.goodput.topics;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Control records on the raw topics: no event, only a place in the log. A generator publishes a
 * {@link #TICK} to every partition of both raw topics every second, and an {@link #END_OF_RUN}
 * when it stops (after ticking on until the run's last windows can close). Their log time is what
 * moves a quiet partition's event time forward, live and in a replay alike, so windows close
 * whether or not a partition carries requests. Readers of the raw topics skip them.
 */
public final class Control {

    /** Header naming the kind of control record; its value is {@link #TICK} or {@link #END_OF_RUN}. */
    public static final String HEADER = "goodput.control";
    public static final String TICK = "tick";
    public static final String END_OF_RUN = "end-of-run";
    /** Header with the run id of an {@link #END_OF_RUN} marker. */
    public static final String RUN_ID = "goodput.run.id";

    private Control() {
    }

    /** True for a control record (a tick or an end-of-run marker), which carries no event. */
    public static boolean is(Headers headers) {
        return headers != null && headers.lastHeader(HEADER) != null;
    }

    /** The kind of a control record, or null for an event. */
    public static String kind(Headers headers) {
        final Header h = headers == null ? null : headers.lastHeader(HEADER);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

package dev.goodput.failure;

import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a Kafka Streams app of Goodput's does with an error that escapes record handling (one
 * record's errors go to the DLQ before they get here). The thread is replaced, for faults that
 * pass, at most a bounded number of times; the app shuts down at once, reaches {@code ERROR}, and
 * {@link #reason()} says why, when replacing cannot help:
 * <ul>
 *   <li>the app never reached RUNNING (a failure at start is configuration or kept state: topics of
 *       the wrong shape, a missing source topic, refused credentials);</li>
 *   <li>the failure has the same cause as the one before (a deterministic error: the new thread
 *       met it again);</li>
 *   <li>the bound is used up.</li>
 * </ul>
 * Each replacement costs a rebalance (the dead thread's member stays in the group until its session
 * times out), so looping on a deterministic error looked, from outside, like an app that had stalled.
 */
public final class FailurePolicy implements StreamsUncaughtExceptionHandler {

    public static final int DEFAULT_MAX_REPLACEMENTS = 3;
    private static final Logger LOG = LoggerFactory.getLogger(FailurePolicy.class);

    private final String app;
    private final int maxReplacements;
    private final AtomicInteger failures = new AtomicInteger();
    private volatile Throwable last;
    private volatile boolean ran;

    /** @param maxReplacements threads replaced over the app's life before it gives up (0: never replace) */
    public FailurePolicy(String app, int maxReplacements) {
        if (maxReplacements < 0) {
            throw new IllegalArgumentException("max thread replacements " + maxReplacements + " must be 0 or more");
        }
        this.app = app;
        this.maxReplacements = maxReplacements;
    }

    /** Makes this the app's uncaught exception handler and lets it see the app's states; call before start. */
    public void install(KafkaStreams streams) {
        streams.setUncaughtExceptionHandler(this);
        streams.setStateListener((now, before) -> onState(now));
    }

    /** Wire to the app's state listener: the app reached RUNNING at least once. */
    public void onState(KafkaStreams.State newState) {
        if (newState == KafkaStreams.State.RUNNING) {
            ran = true;
        }
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        final Throwable previous = last;
        last = exception;
        final int n = failures.incrementAndGet();
        if (!ran) {
            LOG.error("{} failed before it ever ran ({}); shutting down", app, rootCause(exception), exception);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        if (previous != null && rootCause(previous).equals(rootCause(exception))) {
            LOG.error("{} thread failed again with the same cause ({}); shutting down", app, rootCause(exception), exception);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        if (n <= maxReplacements) {
            LOG.warn("{} thread failed ({}); replacing it ({} of {} replacements)", app, rootCause(exception), n,
                    maxReplacements);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        }
        LOG.error("{} thread failed ({}) after {} replacements; shutting down", app, rootCause(exception), maxReplacements,
                exception);
        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }

    /** Threads that failed so far. */
    public int failures() {
        return failures.get();
    }

    /** The last failure's root cause in one line, or null when nothing failed. */
    public String reason() {
        final Throwable t = last;
        return t == null ? null : rootCause(t);
    }

    static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return DeadLetterHandler.describe(t);
    }
}

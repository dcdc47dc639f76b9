package dev.goodput.failure;

import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a Kafka Streams app of Goodput's does with an error that escapes record handling (one
 * record's errors go to the DLQ before they get here): the thread is replaced a bounded number of
 * times, for faults that pass; past that the app shuts down, reaches {@code ERROR}, and
 * {@link #reason()} says why, so the command stops and names the cause instead of looping.
 */
public final class FailurePolicy implements StreamsUncaughtExceptionHandler {

    public static final int DEFAULT_MAX_REPLACEMENTS = 3;
    private static final Logger LOG = LoggerFactory.getLogger(FailurePolicy.class);

    private final String app;
    private final int maxReplacements;
    private final AtomicInteger failures = new AtomicInteger();
    private volatile Throwable last;

    /** @param maxReplacements threads replaced over the app's life before it gives up (0: never replace) */
    public FailurePolicy(String app, int maxReplacements) {
        if (maxReplacements < 0) {
            throw new IllegalArgumentException("max thread replacements " + maxReplacements + " must be 0 or more");
        }
        this.app = app;
        this.maxReplacements = maxReplacements;
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        last = exception;
        final int n = failures.incrementAndGet();
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
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}

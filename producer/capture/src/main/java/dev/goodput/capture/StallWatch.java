package dev.goodput.capture;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The stall timeout of an exchange carried by Jetty's client, watched on Jetty's scheduler: it
 * starts when the response head arrives and runs between reads. Until the head, only the request
 * timeout applies: a server that queues a request for a free slot sends nothing while it waits,
 * and that wait is TTFT, not a stall. (Jetty's own idle timeout cannot tell the two apart, so the
 * exchange's idle timeout is set to the request timeout and this watch does the rest.)
 */
public final class StallWatch {

    private final Scheduler scheduler;
    private final long stallNanos;
    private final Consumer<Throwable> abort;
    private volatile long lastReadNanos;
    private volatile boolean done;

    public StallWatch(Scheduler scheduler, long stallMillis, Consumer<Throwable> abort) {
        this.scheduler = scheduler;
        this.stallNanos = TimeUnit.MILLISECONDS.toNanos(stallMillis);
        this.abort = abort;
    }

    /** The response head arrived: from now on, a silence of the stall timeout ends the exchange. */
    public void headArrived() {
        lastReadNanos = System.nanoTime();
        scheduler.schedule(this::check, stallNanos, TimeUnit.NANOSECONDS);
    }

    public void read(long nanos) {
        lastReadNanos = nanos;
    }

    public void done() {
        done = true;
    }

    private void check() {
        if (done) {
            return;
        }
        final long quiet = System.nanoTime() - lastReadNanos;
        if (quiet >= stallNanos) {
            done = true;
            abort.accept(new TimeoutException("Idle timeout " + TimeUnit.NANOSECONDS.toMillis(stallNanos) + " ms"));
        } else {
            scheduler.schedule(this::check, stallNanos - quiet, TimeUnit.NANOSECONDS);
        }
    }
}

package dev.goodput.capture;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the exchanges' callbacks (status, body, end) on one thread of their own, in the order the
 * selector thread produced them, handed over once per select round. The selector thread only reads,
 * times and frames bytes: parsing server-sent events and JSON, building and publishing events took
 * most of its time, and every chunk read in the next round waited for it (at 1,000 streams the
 * whole wave of first chunks did).
 */
public final class ExchangeWorker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExchangeWorker.class);

    /**
     * How long the worker sleeps when it has nothing to do, by default. The selector thread never
     * wakes it: an unpark per round made the woken worker take the selector's core for 1-5 ms at a
     * time (measured at 1,000 streams), which is exactly the delay the hand-off exists to avoid.
     */
    public static final Duration DEFAULT_IDLE_PARK = Duration.ofMillis(1);

    private final ConcurrentLinkedQueue<List<Event>> rounds = new ConcurrentLinkedQueue<>();
    /** Callbacks handed over and not yet delivered (a round counts until its last callback returns). */
    private final AtomicLong pending = new AtomicLong();
    private final Thread thread;
    private final long idleParkNanos;
    private volatile boolean running = true;
    // filled by the selector thread only
    private List<Event> round = new ArrayList<>();

    public ExchangeWorker(String name) {
        this(name, DEFAULT_IDLE_PARK);
    }

    /**
     * @param idlePark how long the worker sleeps when it finds nothing: each wake-up costs CPU whether
     *                 or not work came, and what it delivers carries its own times, so a worker whose
     *                 deliveries nothing waits on can sleep longer
     */
    public ExchangeWorker(String name, Duration idlePark) {
        this.idleParkNanos = idlePark.toNanos();
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Selector thread: the response's status line arrived. */
    public void status(NioHttpClient.Exchange exchange, int code) {
        round.add(new Event(exchange, code, null, 0, null, null));
    }

    /** Selector thread: body bytes read at {@code readNanos}; copied, since the read buffer is reused. */
    public void body(NioHttpClient.Exchange exchange, ByteBuffer bytes, long readNanos) {
        final byte[] copy = new byte[bytes.remaining()];
        bytes.get(copy);
        round.add(new Event(exchange, BODY, copy, readNanos, null, null));
    }

    /** Selector thread: the exchange ended, with a failure or null; the exchange times the end itself when it gets it. */
    public void end(NioHttpClient.Exchange exchange, Throwable failureOrNull) {
        round.add(new Event(exchange, END, null, -1, failureOrNull, null));
    }

    /**
     * Selector thread: the exchange ended at {@code endNanos} ({@link System#nanoTime()}), with a failure
     * or null. For an observer, whose worker may be behind or lowered (the proxy's run at nice 10): the
     * end is timed when it was seen, not when the worker gets to it.
     */
    public void end(NioHttpClient.Exchange exchange, Throwable failureOrNull, long endNanos) {
        round.add(new Event(exchange, END, null, endNanos, failureOrNull, null));
    }

    /** Selector thread: work to run on the worker, in order with the callbacks around it. */
    public void task(Runnable task) {
        round.add(new Event(null, TASK, null, 0, null, task));
    }

    /** Selector thread: hands the round's callbacks over; the worker finds them within a millisecond. */
    public void flush() {
        if (round.isEmpty()) {
            return;
        }
        pending.addAndGet(round.size());
        rounds.add(round);
        round = new ArrayList<>();
    }

    /**
     * Selector thread: callbacks produced and not yet delivered, this round's included. What a
     * caller that must not grow the queue without bound (a proxy under saturation that lasts) looks
     * at before it starts observing one more exchange.
     */
    public long backlog() {
        return pending.get() + round.size();
    }

    private void run() {
        while (true) {
            final List<Event> r = rounds.poll();
            if (r == null) {
                if (!running) {
                    return;
                }
                LockSupport.parkNanos(this, idleParkNanos);
                continue;
            }
            for (Event e : r) {
                try {
                    e.deliver();
                } catch (RuntimeException ex) {
                    LOG.warn("exchange callback failed: {}", ex.toString());
                }
            }
            pending.addAndGet(-r.size());
        }
    }

    /** Delivers what was handed over, then stops. Call after the selector thread has stopped. */
    @Override
    public void close() {
        flush();
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final int BODY = -1;
    private static final int END = -2;
    private static final int TASK = -3;

    /**
     * One callback: a status (code >= 0, the HTTP status), body bytes ({@link #BODY}) read at
     * {@code readNanos}, the end ({@link #END}) seen at {@code readNanos} (-1: not timed), or a task.
     */
    private record Event(NioHttpClient.Exchange exchange, int code, byte[] bytes, long readNanos, Throwable failure, Runnable task) {
        void deliver() {
            if (code == TASK) {
                task.run();
            } else if (code >= 0) {
                exchange.status(code);
            } else if (code == BODY) {
                exchange.body(ByteBuffer.wrap(bytes), readNanos);
            } else if (readNanos < 0) {
                exchange.end(failure);
            } else {
                exchange.end(failure, readNanos);
            }
        }
    }
}

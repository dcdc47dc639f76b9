package dev.goodput.capture;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.goodput.loop.SelectorLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streaming HTTP/1.1 client for plain {@code http://} targets that reads every connection on one
 * selector thread: bytes are timed the moment {@code read()} returns them, de-chunked, and handed
 * to the stream parser on a thread of its own once per select round ({@link ExchangeWorker}).
 * Keep-alive connections are reused per host; a request that finds one idle is written by the
 * thread that sends it, at its send time. TLS targets go through Jetty instead ({@link StreamingClient}).
 */
public final class NioHttpClient implements AutoCloseable {

    static final Logger LOG = LoggerFactory.getLogger(NioHttpClient.class);

    /**
     * What the client reports for one exchange. {@code sent} comes from the thread that writes the
     * request (the sending thread on a kept-alive connection, else the selector thread); the rest
     * from the client's parsing thread, in order, after {@code sent}.
     */
    public interface Exchange {
        void sent();
        void status(int code);
        /** Bytes of the response body, as {@code read()} returned them at {@code readNanos} ({@link System#nanoTime()}). */
        void body(ByteBuffer bytes, long readNanos);
        void end(Throwable failureOrNull);

        /** The exchange ended at {@code endNanos} (nanoTime, taken by the thread that saw it), delivered later. */
        default void end(Throwable failureOrNull, long endNanos) {
            end(failureOrNull);
        }

        /** The request is being sent again on a new connection: the reused one failed before any response byte. */
        default void resent(String reason) {
        }
    }

    private final Selector selector;
    private final Thread loop;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    // Shared with dispatching threads, which take a kept-alive connection and write their request on it themselves.
    final Map<String, ConcurrentLinkedDeque<NioConnection>> idle = new ConcurrentHashMap<>();
    private final Map<String, ArrayDeque<Call>> waiting = new HashMap<>();
    // While calls wait for a connection, new ones queue behind them instead of taking a freed one first.
    private final AtomicInteger waitingCalls = new AtomicInteger();
    final Map<String, Integer> open = new HashMap<>();
    private final int maxConnectionsPerHost;
    final Set<NioConnection> active = new HashSet<>();
    final ExchangeWorker worker = new ExchangeWorker("goodput-nio-parse");
    final ReadRound round = new ReadRound();
    private volatile boolean running = true;
    private final String selectorPriority;

    /** A client whose selector thread keeps the normal scheduling class. */
    public NioHttpClient(int maxConnectionsPerHost) {
        this(maxConnectionsPerHost, TimingPriority.NORMAL);
    }

    /**
     * @param maxConnectionsPerHost requests beyond this many open connections wait, in order, inside the client
     * @param priority              the selector thread's scheduling class (it stamps every read)
     * @throws TimingPriority.Refused when {@link TimingPriority#REALTIME} is refused
     */
    public NioHttpClient(int maxConnectionsPerHost, TimingPriority priority) {
        this.maxConnectionsPerHost = maxConnectionsPerHost;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a selector", e);
        }
        try {
            final TimingPriority.Started started = priority.start("goodput-nio-http", "HTTP selector", this::run);
            this.loop = started.thread();
            this.selectorPriority = started.applied();
        } catch (RuntimeException e) {
            worker.close();
            closeSelectorQuietly();
            throw e;
        }
    }

    private void closeSelectorQuietly() {
        try {
            selector.close();
        } catch (IOException e) {
            LOG.debug("closing the selector: {}", e.toString());
        }
    }

    /** The selector thread's scheduling class, as applied: "real-time (...)" or "normal (...)". */
    public String selectorPriority() {
        return selectorPriority;
    }

    /** Sends a POST; the exchange hears of every step. Returns a handle that aborts it with a given cause. */
    Consumer<Throwable> post(URI uri, Map<String, String> headers, byte[] body, long timeoutMs,
                                                long idleTimeoutMs, Exchange exchange) {
        return send(prepare(uri, headers, body, timeoutMs, idleTimeoutMs, exchange));
    }

    /** Builds a POST's bytes ahead of its send time, so that sending it is only a socket write. */
    Call prepare(URI uri, Map<String, String> headers, byte[] body, long timeoutMs, long idleTimeoutMs,
                 Exchange exchange) {
        return new Call(uri, headers, body, timeoutMs, idleTimeoutMs, exchange);
    }

    /**
     * Sends a prepared POST. On a kept-alive connection the calling thread writes the request itself,
     * so the send does not wait for the selector thread to be woken and scheduled (under load that
     * wait was most of the dispatch lateness); otherwise the selector thread connects and writes.
     * Returns a handle that aborts the exchange with a given cause.
     */
    Consumer<Throwable> send(Call call) {
        call.deadlineNanos = System.nanoTime() + call.timeoutMs * 1_000_000;
        if (waitingCalls.get() > 0 || !sendOnIdleConnection(call)) {
            tasks.add(() -> begin(call));
            selector.wakeup();
        }
        return cause -> {
            tasks.add(() -> call.fail(cause));
            selector.wakeup();
        };
    }

    private boolean sendOnIdleConnection(Call call) {
        final NioConnection c = takeIdle(call.hostKey);
        if (c == null) {
            return false;
        }
        c.call = call;
        call.conn = c;
        c.resetResponse();
        final ByteBuffer out = ByteBuffer.wrap(call.requestBytes());
        call.markSent();
        // From here the selector thread owns the connection again; the response cannot come before the write.
        c.state.set(NioConnection.BUSY);
        try {
            c.ch.write(out);
        } catch (IOException e) {
            tasks.add(() -> call.fail(e));
            selector.wakeup();
            return true;
        }
        if (out.hasRemaining()) {
            tasks.add(() -> {
                if (c.call == call && !call.done) {
                    active.add(c);
                    c.out = out;
                    c.key.interestOps(SelectionKey.OP_WRITE);
                }
            });
            selector.wakeup();
        } else {
            // Only for the timeout checks, which run every 5 ms: no need to wake the selector for it.
            tasks.add(() -> {
                if (c.call == call && !call.done) {
                    active.add(c);
                }
            });
        }
        return true;
    }

    /** A kept-alive connection to the host, now owned by the caller, or null. */
    private NioConnection takeIdle(String hostKey) {
        final ConcurrentLinkedDeque<NioConnection> pool = idle.get(hostKey);
        if (pool == null) {
            return null;
        }
        NioConnection c;
        while ((c = pool.poll()) != null) {
            if (c.state.compareAndSet(NioConnection.POOLED, NioConnection.CLAIMED)) {
                if (System.nanoTime() - c.idleUntilNanos < 0) {
                    return c;
                }
                // idle past the keep-alive timeout the server stated: it may be closing it now
                final NioConnection stale = c;
                stale.state.set(NioConnection.BUSY);
                tasks.add(stale::closeQuietly);
                selector.wakeup();
            }
        }
        return null;
    }

    private void begin(Call call) {
        final String host = call.uri.getHost();
        final int port = call.uri.getPort() < 0 ? 80 : call.uri.getPort();
        final String hostKey = call.hostKey;
        if (call.done) {
            return;
        }
        // a resent request goes on a new connection, never on another kept-alive one
        NioConnection c = call.resent ? null : takeIdle(hostKey);
        if (c != null) {
            c.state.set(NioConnection.BUSY);
        }
        if (c == null && !call.resent && open.getOrDefault(hostKey, 0) >= maxConnectionsPerHost) {
            waiting.computeIfAbsent(hostKey, h -> new ArrayDeque<>()).add(call);
            waitingCalls.incrementAndGet();
            return;
        }
        if (c == null) {
            try {
                final SocketChannel ch = SocketChannel.open();
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c = new NioConnection(this, ch, hostKey);
                open.merge(hostKey, 1, Integer::sum);
                final boolean connected = ch.connect(new InetSocketAddress(host, port));
                c.key = ch.register(selector, connected ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT, c);
                c.connected = connected;
            } catch (IOException e) {
                worker.end(call.exchange, e);
                return;
            }
        } else {
            c.key.interestOps(SelectionKey.OP_WRITE);
        }
        c.call = call;
        call.conn = c;
        c.resetResponse();
        c.out = ByteBuffer.wrap(call.requestBytes());
        active.add(c);
        if (c.connected) {
            // a kept-alive connection can take the request now, without waiting a select round
            c.ready(c.key);
        }
    }

    private void run() {
        long nextTimeoutCheck = 0;
        while (running) {
            try {
                SelectorLoop.round(selector, 5, tasks, k -> ((NioConnection) k.attachment()).ready(k));
                round.parse();
                final long now = System.nanoTime();
                if (now >= nextTimeoutCheck) {
                    nextTimeoutCheck = now + 5_000_000;
                    checkTimeouts(now);
                }
                worker.flush();
            } catch (IOException | RuntimeException e) {
                LOG.warn("HTTP client loop: {}", e.toString());
            }
        }
    }

    private void checkTimeouts(long now) {
        for (NioConnection c : active.toArray(new NioConnection[0])) {
            final Call call = c.call;
            if (call == null) {
                continue;
            }
            // The stall timeout runs between bytes once the response has begun: a server that queues the
            // request for a free slot sends nothing, not even the status line, and that wait is TTFT.
            if (now >= call.deadlineNanos) {
                call.fail(new TimeoutException((call.responded ? "total timeout " : "no response head within ")
                        + call.timeoutMs + " ms"));
            } else if (call.responded && now - c.lastActivityNanos >= call.idleTimeoutMs * 1_000_000) {
                call.fail(new TimeoutException("Idle timeout " + call.idleTimeoutMs + " ms"));
            }
        }
    }

    @Override
    public void close() {
        running = false;
        SelectorLoop.stop(selector, loop, LOG);
        worker.close();
    }

    /** One request and its response. */
    final class Call {
        final URI uri;
        final String hostKey;
        final Map<String, String> headers;
        final byte[] body;
        final long timeoutMs;
        final long idleTimeoutMs;
        long deadlineNanos;
        private final byte[] bytes;
        private boolean sent;
        final Exchange exchange;
        NioConnection conn;
        boolean done;
        /** A byte of the response has been read: from here the stall timeout applies. */
        boolean responded;
        /** Sent a second time, on a new connection. */
        boolean resent;

        Call(URI uri, Map<String, String> headers, byte[] body, long timeoutMs, long idleTimeoutMs, Exchange exchange) {
            this.uri = uri;
            this.headers = headers;
            this.body = body;
            this.timeoutMs = timeoutMs;
            this.idleTimeoutMs = idleTimeoutMs;
            this.exchange = exchange;
            this.hostKey = uri.getHost() + ":" + (uri.getPort() < 0 ? 80 : uri.getPort());
            this.bytes = buildRequest();
        }

        byte[] requestBytes() {
            return bytes;
        }

        /** The actual send time is when the request's first byte is handed to the socket. */
        void markSent() {
            if (!sent) {
                sent = true;
                exchange.sent();
            }
        }

        private byte[] buildRequest() {
            final StringBuilder sb = new StringBuilder(256);
            final String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
            sb.append("POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(uri.getHost());
            if (uri.getPort() >= 0) {
                sb.append(':').append(uri.getPort());
            }
            sb.append("\r\nContent-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
            headers.forEach((k, v) -> sb.append(k).append(": ").append(v).append("\r\n"));
            sb.append("\r\n");
            return HttpBytes.message(sb, body);
        }

        /**
         * Ends the exchange with a failure and drops its connection (its state is unknown). A request
         * whose reused connection broke before any byte of its response (the server had closed it
         * while it sat in the pool) is sent once more on a new connection instead, and says so.
         */
        void fail(Throwable t) {
            if (done) {
                return;
            }
            if (!resent && !responded && conn != null && conn.reused && t instanceof IOException) {
                resent = true;
                // the broken connection lets go of this call, so that nothing still queued for it picks the call up
                final NioConnection broken = conn;
                broken.call = null;
                broken.closeQuietly();
                conn = null;
                exchange.resent("the reused connection failed before any response byte: " + t);
                begin(this);
                return;
            }
            done = true;
            if (conn != null) {
                conn.closeQuietly();
            } else {
                final ArrayDeque<Call> queue = waiting.get(hostKey);
                if (queue != null && queue.remove(this)) {
                    waitingCalls.decrementAndGet();
                }
            }
            worker.end(exchange, t);
        }

        void succeed() {
            if (done) {
                return;
            }
            done = true;
            worker.end(exchange, null);
        }
    }

    /** A connection came free or closed: the oldest waiting request of that host goes next. */
    void startWaiting(String hostKey) {
        final ArrayDeque<Call> queue = waiting.get(hostKey);
        final Call next = queue == null ? null : queue.poll();
        if (next != null) {
            waitingCalls.decrementAndGet();
            begin(next);
        }
    }
}

package dev.goodput.producer.client;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.goodput.producer.SelectorLoop;
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

    private static final Logger LOG = LoggerFactory.getLogger(NioHttpClient.class);
    private static final int READ_BUFFER = 256 * 1024;
    /** A read with less room than this left in the round's buffer parses the round first. */
    private static final int MIN_READ_SPACE = 16 * 1024;

    /**
     * What the client reports for one exchange. {@code sent} comes from the thread that writes the
     * request (the sending thread on a kept-alive connection, else the selector thread); the rest
     * from the client's parsing thread, in order, after {@code sent}.
     */
    interface Exchange {
        void sent();

        void status(int code);

        /** Bytes of the response body, as {@code read()} returned them at {@code readNanos} ({@link System#nanoTime()}). */
        void body(ByteBuffer bytes, long readNanos);

        void end(Throwable failureOrNull);
    }

    private final Selector selector;
    private final Thread loop;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    // Shared with dispatching threads, which take a kept-alive connection and write their request on it themselves.
    private final Map<String, ConcurrentLinkedDeque<Conn>> idle = new ConcurrentHashMap<>();
    private final Map<String, ArrayDeque<Call>> waiting = new HashMap<>();
    // While calls wait for a connection, new ones queue behind them instead of taking a freed one first.
    private final AtomicInteger waitingCalls = new AtomicInteger();
    private final Map<String, Integer> open = new HashMap<>();
    private final int maxConnectionsPerHost;
    private final Set<Conn> active = new HashSet<>();
    private final ExchangeWorker worker = new ExchangeWorker("goodput-nio-parse");
    // One select round's reads, in order: every ready connection is read and timed first, then the
    // bytes are parsed, so a chunk's time does not include parsing the chunks read before it.
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_BUFFER);
    private Conn[] roundConns = new Conn[256];
    private int[] roundStart = new int[256];
    private int[] roundLength = new int[256];
    private long[] roundNanos = new long[256];
    private int roundSize;
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
        final CompletableFuture<String> applied = new CompletableFuture<>();
        this.loop = new Thread(() -> {
            try {
                applied.complete(priority.applyToCurrentThread("HTTP selector"));
            } catch (RuntimeException e) {
                applied.completeExceptionally(e);
                return;
            }
            run();
        }, "goodput-nio-http");
        loop.setDaemon(true);
        loop.start();
        try {
            this.selectorPriority = applied.join();
        } catch (CompletionException e) {
            worker.close();
            closeSelectorQuietly();
            throw (RuntimeException) e.getCause();
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
        final Conn c = takeIdle(call.hostKey);
        if (c == null) {
            return false;
        }
        c.call = call;
        call.conn = c;
        c.resetResponse();
        final ByteBuffer out = ByteBuffer.wrap(call.requestBytes());
        call.markSent();
        // From here the selector thread owns the connection again; the response cannot come before the write.
        c.state.set(Conn.BUSY);
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
    private Conn takeIdle(String hostKey) {
        final ConcurrentLinkedDeque<Conn> pool = idle.get(hostKey);
        if (pool == null) {
            return null;
        }
        Conn c;
        while ((c = pool.poll()) != null) {
            if (c.state.compareAndSet(Conn.POOLED, Conn.CLAIMED)) {
                return c;
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
        Conn c = takeIdle(hostKey);
        if (c != null) {
            c.state.set(Conn.BUSY);
        }
        if (c == null && open.getOrDefault(hostKey, 0) >= maxConnectionsPerHost) {
            waiting.computeIfAbsent(hostKey, h -> new ArrayDeque<>()).add(call);
            waitingCalls.incrementAndGet();
            return;
        }
        if (c == null) {
            try {
                final SocketChannel ch = SocketChannel.open();
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c = new Conn(ch, hostKey);
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
                selector.select(5);
                Runnable t;
                while ((t = tasks.poll()) != null) {
                    t.run();
                }
                final Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    final SelectionKey k = it.next();
                    it.remove();
                    if (k.isValid()) {
                        ((Conn) k.attachment()).ready(k);
                    }
                }
                parseRound();
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

    private void addRead(Conn c, int start, int length, long nanos) {
        if (roundSize == roundConns.length) {
            final int n = roundSize * 2;
            roundConns = Arrays.copyOf(roundConns, n);
            roundStart = Arrays.copyOf(roundStart, n);
            roundLength = Arrays.copyOf(roundLength, n);
            roundNanos = Arrays.copyOf(roundNanos, n);
        }
        roundConns[roundSize] = c;
        roundStart[roundSize] = start;
        roundLength[roundSize] = length;
        roundNanos[roundSize] = nanos;
        roundSize++;
    }

    /** Parses the reads of the round so far, in the order they were made, and empties the buffer. */
    private void parseRound() {
        for (int i = 0; i < roundSize; i++) {
            final Conn c = roundConns[i];
            roundConns[i] = null;
            try {
                c.consume(roundStart[i], roundLength[i], roundNanos[i]);
            } catch (IOException e) {
                c.broken(e);
            }
        }
        roundSize = 0;
        readBuffer.clear();
    }

    private void checkTimeouts(long now) {
        for (Conn c : active.toArray(new Conn[0])) {
            final Call call = c.call;
            if (call == null) {
                continue;
            }
            if (now >= call.deadlineNanos) {
                call.fail(new TimeoutException("total timeout " + call.timeoutMs + " ms"));
            } else if (now - c.lastActivityNanos >= call.idleTimeoutMs * 1_000_000) {
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
        Conn conn;
        boolean done;

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
            final byte[] head = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
            final byte[] all = new byte[head.length + body.length];
            System.arraycopy(head, 0, all, 0, head.length);
            System.arraycopy(body, 0, all, head.length, body.length);
            return all;
        }

        /** Ends the exchange with a failure and drops its connection (its state is unknown). */
        void fail(Throwable t) {
            if (done) {
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

    /** A connection: request writing, then a response parsed as bytes arrive. */
    private final class Conn {
        // Who may touch the connection: the selector thread (BUSY), nobody yet (POOLED: idle, kept alive),
        // or a dispatching thread that took it from the pool (CLAIMED) and is writing its request.
        static final int BUSY = 0;
        static final int POOLED = 1;
        static final int CLAIMED = 2;
        final AtomicInteger state = new AtomicInteger(BUSY);
        final SocketChannel ch;
        final String hostKey;
        SelectionKey key;
        boolean connected;
        Call call;
        ByteBuffer out;
        long lastActivityNanos = System.nanoTime();
        private long readNanos;
        // response parsing
        private final StringBuilder line = new StringBuilder(128);
        private int phase;            // 0 status, 1 headers, 2 body
        private boolean chunked;
        private long contentLength;   // -1: until close
        private boolean keepAlive;
        private int chunkPhase;       // 0 size line, 1 data, 2 CRLF after data, 3 trailers
        private long chunkRemaining;

        Conn(SocketChannel ch, String hostKey) {
            this.ch = ch;
            this.hostKey = hostKey;
        }

        void resetResponse() {
            line.setLength(0);
            phase = 0;
            chunked = false;
            contentLength = -1;
            keepAlive = true;
            chunkPhase = 0;
            chunkRemaining = 0;
            lastActivityNanos = System.nanoTime();
        }

        void ready(SelectionKey k) {
            final int owner = state.get();
            if (owner == CLAIMED) {
                return;
            }
            if (owner == POOLED) {
                // An idle connection became readable: the server closed it, or sent bytes nobody asked for.
                if (state.compareAndSet(POOLED, BUSY)) {
                    closeQuietly();
                }
                return;
            }
            final Call c = call;
            try {
                if (out != null && connected && (k.readyOps() & SelectionKey.OP_CONNECT) == 0 && c != null
                        && k.interestOps() == SelectionKey.OP_WRITE) {
                    writeRequest(k, c);
                    return;
                }
                if (k.isConnectable()) {
                    ch.finishConnect();
                    connected = true;
                    k.interestOps(SelectionKey.OP_WRITE);
                }
                if (k.isValid() && k.isWritable() && out != null) {
                    writeRequest(k, c);
                }
                if (k.isValid() && k.isReadable()) {
                    read();
                }
            } catch (IOException e) {
                broken(e);
            }
        }

        /** An I/O error: the call on the connection fails (which drops it), or an idle connection is closed. */
        void broken(IOException e) {
            if (call != null) {
                call.fail(e);
            } else {
                closeQuietly();
            }
        }

        private void writeRequest(SelectionKey k, Call c) throws IOException {
            if (c != null) {
                c.markSent();
            }
            ch.write(out);
            if (!out.hasRemaining()) {
                out = null;
                k.interestOps(SelectionKey.OP_READ);
            }
        }

        /** Reads what the socket holds into the round's buffer and times it; {@link #consume} parses it later. */
        private void read() throws IOException {
            if (readBuffer.remaining() < MIN_READ_SPACE) {
                parseRound();
            }
            final int start = readBuffer.position();
            final int n = ch.read(readBuffer);
            if (n != 0) {
                addRead(this, start, n, System.nanoTime());
            }
        }

        /** Parses one read of this connection: {@code n} bytes at {@code start} of the round's buffer, or end of stream. */
        void consume(int start, int n, long readNanos) throws IOException {
            if (!ch.isOpen()) {
                return;
            }
            if (n < 0) {
                if (call != null && phase == 2 && !chunked && contentLength < 0) {
                    final Call c = call;
                    finishResponse(false);
                    c.succeed();
                } else if (call != null) {
                    call.fail(new EOFException("connection closed by the server before the response ended"));
                } else {
                    closeQuietly();
                }
                return;
            }
            lastActivityNanos = readNanos;
            this.readNanos = readNanos;
            readBuffer.limit(start + n).position(start);
            // Stop at the end of this call's response: once the connection is back in the pool, a
            // dispatching thread may already have given it the next call.
            final Call owner = call;
            while (readBuffer.hasRemaining() && owner != null && call == owner && !owner.done) {
                if (phase < 2) {
                    headerByte(readBuffer.get());
                } else {
                    bodyBytes();
                }
            }
        }

        private void headerByte(byte b) throws IOException {
            if (b == '\n') {
                final String l = line.toString();
                line.setLength(0);
                if (phase == 0) {
                    final String[] parts = l.split(" ", 3);
                    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
                        throw new IOException("not an HTTP/1.x response: " + l);
                    }
                    keepAlive = !parts[0].equals("HTTP/1.0");
                    worker.status(call.exchange, Integer.parseInt(parts[1].trim()));
                    phase = 1;
                } else if (l.isEmpty()) {
                    phase = 2;
                    if (!chunked && contentLength == 0) {
                        final Call c = call;
                        finishResponse(keepAlive);
                        c.succeed();
                    }
                } else {
                    final int colon = l.indexOf(':');
                    if (colon > 0) {
                        final String name = l.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                        final String value = l.substring(colon + 1).trim();
                        if (name.equals("transfer-encoding") && value.toLowerCase(Locale.ROOT).contains("chunked")) {
                            chunked = true;
                        } else if (name.equals("content-length")) {
                            contentLength = Long.parseLong(value);
                        } else if (name.equals("connection")) {
                            keepAlive = !value.equalsIgnoreCase("close");
                        }
                    }
                }
            } else if (b != '\r') {
                line.append((char) (b & 0xff));
            }
        }

        /** Consumes body bytes from the read buffer: chunked framing or a known or open length. */
        private void bodyBytes() throws IOException {
            if (!chunked) {
                int n = readBuffer.remaining();
                if (contentLength >= 0) {
                    n = (int) Math.min(n, contentLength);
                    contentLength -= n;
                }
                deliver(n);
                if (contentLength == 0) {
                    final Call c = call;
                    finishResponse(keepAlive);
                    c.succeed();
                }
                return;
            }
            switch (chunkPhase) {
                case 0, 3 -> {
                    final byte b = readBuffer.get();
                    if (b == '\n') {
                        final String l = line.toString();
                        line.setLength(0);
                        if (chunkPhase == 3) {
                            if (l.isEmpty()) {
                                final Call c = call;
                                finishResponse(keepAlive);
                                c.succeed();
                            }
                            return;
                        }
                        final int semi = l.indexOf(';');
                        final long size = Long.parseLong((semi >= 0 ? l.substring(0, semi) : l).trim(), 16);
                        if (size == 0) {
                            chunkPhase = 3;
                        } else {
                            chunkRemaining = size;
                            chunkPhase = 1;
                        }
                    } else if (b != '\r') {
                        line.append((char) (b & 0xff));
                    }
                }
                case 1 -> {
                    final int n = (int) Math.min(readBuffer.remaining(), chunkRemaining);
                    deliver(n);
                    chunkRemaining -= n;
                    if (chunkRemaining == 0) {
                        chunkPhase = 2;
                    }
                }
                default -> {
                    final byte b = readBuffer.get();
                    if (b == '\n') {
                        chunkPhase = 0;
                    } else if (b != '\r') {
                        throw new IOException("malformed chunked encoding");
                    }
                }
            }
        }

        private void deliver(int n) {
            final ByteBuffer slice = readBuffer.slice();
            slice.limit(n);
            readBuffer.position(readBuffer.position() + n);
            worker.body(call.exchange, slice, readNanos);
        }

        /** The response is complete: the connection goes back to the pool or is closed. */
        private void finishResponse(boolean reuse) {
            active.remove(this);
            call = null;
            if (reuse && ch.isOpen()) {
                key.interestOps(SelectionKey.OP_READ);
                state.set(POOLED);
                idle.computeIfAbsent(hostKey, h -> new ConcurrentLinkedDeque<>()).add(this);
                startWaiting(hostKey);
            } else {
                closeQuietly();
            }
        }

        void closeQuietly() {
            if (!ch.isOpen()) {
                return;
            }
            open.merge(hostKey, -1, Integer::sum);
            active.remove(this);
            final ConcurrentLinkedDeque<Conn> pool = idle.get(hostKey);
            if (pool != null) {
                pool.remove(this);
            }
            if (key != null) {
                key.cancel();
            }
            try {
                ch.close();
            } catch (IOException e) {
                LOG.debug("close: {}", e.getMessage());
            }
            startWaiting(hostKey);
        }
    }

    /** A connection came free or closed: the oldest waiting request of that host goes next. */
    private void startWaiting(String hostKey) {
        final ArrayDeque<Call> queue = waiting.get(hostKey);
        final Call next = queue == null ? null : queue.poll();
        if (next != null) {
            waitingCalls.decrementAndGet();
            begin(next);
        }
    }
}

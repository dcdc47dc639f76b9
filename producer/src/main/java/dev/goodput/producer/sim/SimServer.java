package dev.goodput.producer.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.producer.Corpus;
import dev.goodput.producer.MicroClock;
import dev.goodput.producer.SelectorLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The built-in simulated inference server: real HTTP/1.1 on loopback, OpenAI's
 * {@code /v1/chat/completions} and {@code /v1/completions} with server-sent events, driven by a
 * continuous-batching {@link Engine}. One thread runs the selector and the engine, so every
 * chunk's write time is exact and is recorded in a {@link SimTrace} per request: the truth against
 * which the load generator's own timing error is measured.
 *
 * <p>Also answers {@code GET /v1/models}, {@code GET /health}, and {@code GET /sim/trace} (the
 * traces of finished requests as JSON lines, drained on read) for benchmarks in another process.
 */
public final class SimServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SimServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int READ_BUFFER = 64 * 1024;

    private final Selector selector;
    /** What {@code GET /version} reports. */
    public static final String VERSION = "goodput-simulator 0.1.0";

    private final ServerSocketChannel server;
    private final Engine engine;
    private final MicroClock clock = MicroClock.system();
    private final ConcurrentLinkedQueue<SimTrace> traces = new ConcurrentLinkedQueue<>();
    /** Traces kept at most (0: none); past it the oldest go, counted in {@link #tracesDropped()}. */
    private final int traceCapacity;
    private final AtomicInteger traceCount = new AtomicInteger();
    private final AtomicLong tracesDropped = new AtomicLong();
    private final Thread loop;
    private volatile boolean running = true;
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_BUFFER);
    private long nextId;

    /** A simulator that keeps no traces: a long run's memory stays flat. */
    public SimServer(SimConfig config, Corpus corpus, int port) {
        this(config, corpus, port, 0);
    }

    /**
     * @param traceCapacity traces of finished requests kept for {@link #drainTraces()} and {@code GET
     *                      /sim/trace}, at most (tests and benchmarks ask for them; 0 keeps none)
     */
    public SimServer(SimConfig config, Corpus corpus, int port, int traceCapacity) {
        if (traceCapacity < 0) {
            throw new IllegalArgumentException("trace capacity " + traceCapacity + " must be 0 or more");
        }
        this.traceCapacity = traceCapacity;
        try {
            this.selector = Selector.open();
            this.server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 4096);
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + port + " for the simulator", e);
        }
        this.engine = new Engine(config, corpus, clock, this::finished);
        this.loop = new Thread(this::run, "sim-server");
        loop.setDaemon(true);
        loop.start();
    }

    public int port() {
        return server.socket().getLocalPort();
    }

    /** Base URL of the OpenAI-compatible API, for example {@code http://127.0.0.1:8000/v1}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port() + "/v1";
    }

    /** Takes the traces of requests finished so far. */
    public List<SimTrace> drainTraces() {
        final List<SimTrace> out = new ArrayList<>();
        SimTrace t;
        while ((t = traces.poll()) != null) {
            traceCount.decrementAndGet();
            out.add(t);
        }
        return out;
    }

    /** Traces dropped because more than the capacity were waiting to be drained. */
    public long tracesDropped() {
        return tracesDropped.get();
    }

    private void finished(SimTrace t) {
        if (traceCapacity == 0) {
            return;
        }
        traces.add(t);
        if (traceCount.incrementAndGet() > traceCapacity && traces.poll() != null) {
            traceCount.decrementAndGet();
            tracesDropped.incrementAndGet();
        }
    }

    @Override
    public void close() {
        running = false;
        SelectorLoop.stop(selector, loop, LOG);
    }

    private void run() {
        while (running) {
            try {
                final long dueNanos = engine.nextStepNanos();
                final long wait = dueNanos == Long.MAX_VALUE ? Long.MAX_VALUE : dueNanos - System.nanoTime();
                if (wait == Long.MAX_VALUE) {
                    selector.select();
                } else if (wait >= 2_000_000) {
                    // select() sleeps in whole milliseconds: wake a little early and park the rest
                    selector.select(Math.max(1, wait / 1_000_000 - 1));
                } else {
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    selector.selectNow();
                }
                final Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    final SelectionKey key = it.next();
                    it.remove();
                    handle(key);
                }
                engine.stepIfDue(System.nanoTime());
            } catch (IOException | RuntimeException e) {
                LOG.warn("simulator loop: {}", e.toString());
            }
        }
    }

    private void handle(SelectionKey key) throws IOException {
        if (!key.isValid()) {
            return;
        }
        if (key.isAcceptable()) {
            SocketChannel ch;
            while ((ch = server.accept()) != null) {
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                final Conn c = new Conn(ch);
                c.key = ch.register(selector, SelectionKey.OP_READ, c);
            }
            return;
        }
        final Conn c = (Conn) key.attachment();
        if (key.isWritable()) {
            c.flush();
        }
        if (key.isValid() && key.isReadable()) {
            c.read();
        }
    }

    /** One client connection: HTTP/1.1 request parsing, keep-alive, and buffered non-blocking writes. */
    final class Conn {
        final SocketChannel ch;
        SelectionKey key;
        private byte[] in = new byte[4096];
        private int inLength;
        private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
        private boolean busy;
        private boolean closeAfterResponse;
        private boolean closed;
        Engine.Sequence active;

        Conn(SocketChannel ch) {
            this.ch = ch;
        }

        void read() {
            int n;
            try {
                readBuffer.clear();
                n = ch.read(readBuffer);
            } catch (IOException e) {
                n = -1;
            }
            if (n < 0) {
                close();
                return;
            }
            readBuffer.flip();
            if (inLength + n > in.length) {
                in = Arrays.copyOf(in, Math.max(in.length * 2, inLength + n));
            }
            readBuffer.get(in, inLength, n);
            inLength += n;
            processRequests();
        }

        /** Parses and serves buffered requests, one at a time (a stream holds the connection). */
        void processRequests() {
            while (!busy && !closed) {
                final int headerEnd = indexOf(in, inLength, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                if (headerEnd < 0) {
                    return;
                }
                final String head = new String(in, 0, headerEnd, StandardCharsets.ISO_8859_1);
                final String[] lines = head.split("\r\n");
                final String[] requestLine = lines[0].split(" ");
                int contentLength = 0;
                String requestId = null;
                boolean close = requestLine.length > 2 && "HTTP/1.0".equals(requestLine[2]);
                for (int i = 1; i < lines.length; i++) {
                    final int colon = lines[i].indexOf(':');
                    if (colon < 0) {
                        continue;
                    }
                    final String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
                    final String value = lines[i].substring(colon + 1).trim();
                    switch (name) {
                        case "content-length" -> contentLength = Integer.parseInt(value);
                        case "x-request-id" -> requestId = value;
                        case "connection" -> close = value.equalsIgnoreCase("close");
                        default -> {
                        }
                    }
                }
                final int total = headerEnd + 4 + contentLength;
                if (inLength < total) {
                    return;
                }
                final byte[] body = Arrays.copyOfRange(in, headerEnd + 4, total);
                System.arraycopy(in, total, in, 0, inLength - total);
                inLength -= total;
                closeAfterResponse = close;
                busy = true;
                serve(requestLine.length > 1 ? requestLine[0] : "", requestLine.length > 1 ? requestLine[1] : "",
                        requestId, body);
            }
        }

        private void serve(String method, String path, String requestId, byte[] body) {
            final long receivedUs = clock.nowMicros();
            final String id = requestId != null ? requestId : "sim-" + (++nextId);
            final String route = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
            switch (method + " " + route) {
                case "POST /v1/chat/completions", "POST /v1/completions" -> {
                    final JsonNode request;
                    try {
                        request = JSON.readTree(body);
                    } catch (IOException e) {
                        // the trace first: a client that has its answer can read the trace of it at once
                        finished(new SimTrace(id, receivedUs, -1, -1, 0, 0, 0, 0, 400, "bad_request"));
                        respond(400, json("{\"error\":{\"message\":\"body is not JSON\",\"type\":\"invalid_request_error\"}}"));
                        return;
                    }
                    if (!request.path("stream").asBoolean(false)) {
                        finished(new SimTrace(id, receivedUs, -1, -1, 0, 0, 0, 0, 400, "bad_request"));
                        respond(400, json("{\"error\":{\"message\":\"the simulator serves stream=true only\","
                                + "\"type\":\"invalid_request_error\"}}"));
                        return;
                    }
                    engine.submit(this, id, receivedUs, route.endsWith("chat/completions"), request);
                }
                case "GET /v1/models" -> respond(200, json("{\"object\":\"list\",\"data\":[{\"id\":\""
                        + engine.config().model() + "\",\"object\":\"model\",\"owned_by\":\"goodput\"}]}"));
                case "GET /health" -> respond(200, json("{\"status\":\"ok\"}"));
                // vLLM answers GET /version the same way; the report bundle records it
                case "GET /version" -> respond(200, json("{\"version\":\"" + VERSION + "\"}"));
                case "GET /sim/trace" -> respond(200, traceLines());
                default -> respond(404, json("{\"error\":{\"message\":\"no route " + method + " " + route
                        + "\",\"type\":\"not_found\"}}"));
            }
        }

        private Body traceLines() {
            final StringBuilder sb = new StringBuilder();
            for (SimTrace t : drainTraces()) {
                try {
                    sb.append(JSON.writeValueAsString(t)).append('\n');
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return new Body("application/x-ndjson", sb.toString());
        }

        /** A complete, non-streamed response. */
        void respond(int status, Body body) {
            final byte[] b = body.text().getBytes(StandardCharsets.UTF_8);
            final String head = "HTTP/1.1 " + status + " " + reason(status) + "\r\nContent-Type: " + body.type()
                    + "\r\nContent-Length: " + b.length + (closeAfterResponse ? "\r\nConnection: close" : "") + "\r\n\r\n";
            write(ByteBuffer.wrap(head.getBytes(StandardCharsets.US_ASCII)));
            write(ByteBuffer.wrap(b));
            endResponse();
        }

        void startStream() {
            write(ByteBuffer.wrap(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                    + "Transfer-Encoding: chunked" + (closeAfterResponse ? "\r\nConnection: close" : "") + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII)));
        }

        /** Writes one server-sent event as one HTTP chunk. */
        void event(String data) {
            final byte[] payload = ("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8);
            final byte[] size = (Integer.toHexString(payload.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            final ByteBuffer b = ByteBuffer.allocate(size.length + payload.length + 2);
            b.put(size).put(payload).put((byte) '\r').put((byte) '\n').flip();
            write(b);
        }

        void endStream() {
            event("[DONE]");
            write(ByteBuffer.wrap("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            endResponse();
        }

        private void endResponse() {
            active = null;
            busy = false;
            if (closeAfterResponse) {
                closeWhenFlushed();
            } else {
                processRequests();
            }
        }

        void write(ByteBuffer b) {
            if (closed) {
                return;
            }
            if (out.isEmpty()) {
                try {
                    ch.write(b);
                } catch (IOException e) {
                    close();
                    return;
                }
            }
            if (b.hasRemaining()) {
                out.add(b);
                key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
            }
        }

        void flush() {
            try {
                while (!out.isEmpty()) {
                    final ByteBuffer b = out.peek();
                    ch.write(b);
                    if (b.hasRemaining()) {
                        return;
                    }
                    out.poll();
                }
                key.interestOps(SelectionKey.OP_READ);
                if (closeAfterResponse && !busy) {
                    close();
                }
            } catch (IOException e) {
                close();
            }
        }

        private void closeWhenFlushed() {
            if (out.isEmpty()) {
                close();
            }
        }

        /** Resets the connection (RST), as a crashed or killed server would. */
        void reset() {
            try {
                ch.setOption(StandardSocketOptions.SO_LINGER, 0);
            } catch (IOException e) {
                LOG.debug("linger: {}", e.getMessage());
            }
            close();
        }

        void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (active != null) {
                engine.cancel(active);
                active = null;
            }
            key.cancel();
            try {
                ch.close();
            } catch (IOException e) {
                LOG.debug("close: {}", e.getMessage());
            }
        }

        boolean isClosed() {
            return closed;
        }
    }

    /** A response body and its content type. */
    record Body(String type, String text) {
    }

    static Body json(String text) {
        return new Body("application/json", text);
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 503 -> "Service Unavailable";
            default -> "Status";
        };
    }

    private static int indexOf(byte[] data, int length, byte[] pattern) {
        outer:
        for (int i = 0; i <= length - pattern.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}

package dev.goodput.simulator;

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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.contract.load.Corpus;
import dev.goodput.loop.MicroClock;
import dev.goodput.loop.SelectorLoop;
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
    final Engine engine;
    final MicroClock clock = MicroClock.system();
    private final ConcurrentLinkedQueue<SimTrace> traces = new ConcurrentLinkedQueue<>();
    /** Traces kept at most (0: none); past it the oldest go, counted in {@link #tracesDropped()}. */
    private final int traceCapacity;
    private final AtomicInteger traceCount = new AtomicInteger();
    private final AtomicLong tracesDropped = new AtomicLong();
    private final Thread loop;
    private volatile boolean running = true;
    final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_BUFFER);
    private long nextId;

    /** A request id for a request that came without one. */
    long nextId() {
        return ++nextId;
    }

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

    void finished(SimTrace t) {
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
                final SimConnection c = new SimConnection(this, ch);
                c.key = ch.register(selector, SelectionKey.OP_READ, c);
            }
            return;
        }
        final SimConnection c = (SimConnection) key.attachment();
        if (key.isWritable()) {
            c.flush();
        }
        if (key.isValid() && key.isReadable()) {
            c.read();
        }
    }
}

package dev.goodput.proxy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

import dev.goodput.capture.ExchangeWorker;
import dev.goodput.capture.TimingPriority;
import dev.goodput.loop.SelectorLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy for a plain-HTTP upstream: one selector thread accepts clients, reads their requests,
 * writes them to kept-alive upstream connections, and hands each read of an answer to its client
 * at once, as it came (only the head is rewritten), timing it the moment {@code read()} returns.
 * Observing (JSON, events, Avro, Kafka) runs on a thread of its own ({@link ExchangeWorker}), as in
 * the generator's client, so no client waits for it. A client that reads slower than the upstream
 * writes pauses that upstream connection: at most one read per exchange is ever held.
 */
final class NioProxy implements ProxyServer.Engine {

    static final Logger LOG = LoggerFactory.getLogger(NioProxy.class);
    private static final int READ_BUFFER = 64 * 1024;
    /** How often running exchanges are checked against their request and stall timeouts. */
    private static final long SWEEP_NANOS = 20_000_000;
    /** How often idle client connections are looked for. */
    private static final long IDLE_SWEEP_NANOS = 1_000_000_000;

    final ProxyServer proxy;
    private final Selector selector;
    /**
     * The client connections again, for reading only, looked at mid-round: a request that comes while
     * a round serves a step's chunks of every stream (at a step boundary, all of them) is read after
     * {@link #PROBE_EVERY} more chunks at most, not after the whole round.
     */
    private final Selector probe;
    private static final int PROBE_EVERY = 32;
    private final ServerSocketChannel server;
    private final Thread loop;
    private final String timing;
    /**
     * The observing thread sleeps 5 ms when it finds nothing, not the generator's 1 ms: every callback
     * it gets carries the selector's own times (reads, the end), and forwarding never waits on it, so
     * waking less often only delays publishing, while each wake-up costs the proxy CPU (at 1 ms it was
     * 0.012-0.018 cores idle, measured).
     */
    private static final Duration OBSERVER_IDLE_PARK = Duration.ofMillis(5);
    final ExchangeWorker worker = new ExchangeWorker("goodput-proxy-observe", OBSERVER_IDLE_PARK);
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Every read lands here first; its bytes are handed on before the next read. */
    final ByteBuffer read = ByteBuffer.allocateDirect(READ_BUFFER);
    private final ArrayDeque<Upstream> idle = new ArrayDeque<>();
    /** A round's keys of answers under way, served after the others. */
    private final ArrayList<SelectionKey> later = new ArrayList<>();
    private final ArrayDeque<ProxyExchange> waiting = new ArrayDeque<>();
    final Set<ProxyExchange> active = new HashSet<>();
    final Set<ClientSide> clients = new HashSet<>();
    private int upstreamOpen;
    final String upstreamHost;
    private final InetSocketAddress upstreamAddress;
    private volatile boolean running = true;

    NioProxy(ProxyServer proxy, InetSocketAddress listen, TimingPriority priority) throws IOException {
        this.proxy = proxy;
        this.upstreamHost = proxy.upstream().getRawAuthority();
        final int port = proxy.upstream().getPort() < 0 ? 80 : proxy.upstream().getPort();
        this.upstreamAddress = new InetSocketAddress(proxy.upstream().getHost(), port);
        this.selector = Selector.open();
        this.probe = Selector.open();
        this.server = ServerSocketChannel.open();
        server.bind(listen, 1024);
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        try {
            final TimingPriority.Started started = priority.start("goodput-proxy-nio", "proxy selector", this::run);
            this.loop = started.thread();
            this.timing = started.applied();
        } catch (RuntimeException e) {
            worker.close();
            server.close();
            selector.close();
            throw e;
        }
    }

    @Override
    public InetSocketAddress address() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new IllegalStateException("the proxy's socket is closed", e);
        }
    }

    @Override
    public String timing() {
        return timing;
    }

    /** Runs {@code task} on the selector thread. */
    void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    private void run() {
        long nextSweep = 0;
        long nextIdleSweep = 0;
        while (running) {
            try {
                round();
                worker.flush();
                final long now = System.nanoTime();
                if (now >= nextSweep) {
                    nextSweep = now + SWEEP_NANOS;
                    for (ProxyExchange e : active.toArray(new ProxyExchange[0])) {
                        e.checkTimeouts(now);
                    }
                    // a closed client's socket is released once every selector it is registered with has selected again
                    probe();
                    worker.flush();
                }
                if (now >= nextIdleSweep) {
                    nextIdleSweep = now + IDLE_SWEEP_NANOS;
                    final long idle = proxy.clientIdleNanos();
                    for (ClientSide c : clients.toArray(new ClientSide[0])) {
                        if (c.idleSince(now) >= idle) {
                            c.close();
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("proxy loop: {}", e.toString());
            }
        }
    }

    /**
     * One round: the keys a client's time to first token waits on (a connection to accept, a request
     * coming in, an answer whose first byte has not come) go before the chunks of answers under way.
     * Every key of the round is served either way; at 1,000 streams a round is long, and a request
     * served in key-set order waited for a random share of it on its way in.
     */
    private void round() throws IOException {
        // woken by any ready key or task; the timeout only paces the sweeps when nothing comes
        selector.select(SWEEP_NANOS / 1_000_000);
        Runnable t;
        while ((t = tasks.poll()) != null) {
            t.run();
        }
        try {
            for (SelectionKey k : selector.selectedKeys()) {
                if (!firstByteWaits(k)) {
                    later.add(k);
                } else if (k.isValid()) {
                    ready(k);
                }
            }
            for (int i = 0; i < later.size(); i++) {
                final SelectionKey k = later.get(i);
                if (k.isValid()) {
                    ready(k);
                }
                if (i % PROBE_EVERY == PROBE_EVERY - 1) {
                    probe();
                }
            }
        } finally {
            // a key that failed leaves none of this round behind, to be served again as if ready
            selector.selectedKeys().clear();
            later.clear();
        }
    }

    /** Reads the requests that came to clients waiting for their next one; the rest wait for the next round. */
    private void probe() throws IOException {
        if (probe.selectNow() == 0) {
            return;
        }
        try {
            for (SelectionKey k : probe.selectedKeys()) {
                if (k.isValid() && k.attachment() instanceof ClientSide c && c.waitsForRequest()) {
                    c.ready(k);
                }
            }
        } finally {
            probe.selectedKeys().clear();
        }
    }

    private static boolean firstByteWaits(SelectionKey k) {
        return !(k.attachment() instanceof Upstream u) || u.exchange == null || !u.exchange.answered();
    }

    private void ready(SelectionKey k) throws IOException {
        if (k.attachment() == null) {
            accept();
        } else if (k.attachment() instanceof ClientSide c) {
            c.ready(k);
        } else {
            ((Upstream) k.attachment()).ready(k);
        }
    }

    private void accept() throws IOException {
        SocketChannel ch;
        while ((ch = server.accept()) != null) {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            final ClientSide c = new ClientSide(this, ch);
            c.key = ch.register(selector, SelectionKey.OP_READ, c);
            ch.register(probe, SelectionKey.OP_READ, c);
            clients.add(c);
        }
    }

    /** Gives the exchange an upstream connection: a kept-alive one, a new one, or a place in the queue. */
    void connect(ProxyExchange e) {
        Upstream u;
        while ((u = idle.poll()) != null) {
            if (u.ch.isOpen()) {
                e.start(u, true);
                return;
            }
        }
        if (upstreamOpen >= proxy.maxUpstreamConnections()) {
            waiting.add(e);
            return;
        }
        try {
            final SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            u = new Upstream(this, ch);
            upstreamOpen++;
            final boolean connected = ch.connect(upstreamAddress);
            u.connected = connected;
            u.key = ch.register(selector, connected ? 0 : SelectionKey.OP_CONNECT, u);
        } catch (IOException ex) {
            e.fail(ex);
            return;
        }
        e.start(u, false);
    }

    /** A request's exchange left the queue (it ended while waiting). */
    void leaveQueue(ProxyExchange e) {
        waiting.remove(e);
    }

    /** The connection carried its response whole and may carry another. */
    void release(Upstream u) {
        u.exchange = null;
        idle.addFirst(u);
        final ProxyExchange next = waiting.poll();
        if (next != null) {
            connect(next);
        }
    }

    /** The connection is closed: its place goes to the oldest waiting request. */
    void closed(Upstream u) {
        upstreamOpen--;
        idle.remove(u);
        final ProxyExchange next = waiting.poll();
        if (next != null) {
            connect(next);
        }
    }

    @Override
    public void close() {
        running = false;
        SelectorLoop.stop(selector, loop, LOG);
        try {
            probe.close();
        } catch (IOException e) {
            LOG.warn("closing the proxy's probe selector: {}", e.toString());
        }
        worker.close();
    }
}

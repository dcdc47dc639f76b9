package dev.goodput.capture;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/** A connection: request writing, then a response parsed as bytes arrive. */
final class NioConnection implements ResponseParser.Listener {
    // Who may touch the connection: the selector thread (BUSY), nobody yet (POOLED: idle, kept alive),
    // or a dispatching thread that took it from the pool (CLAIMED) and is writing its request.
    static final int BUSY = 0;
    static final int POOLED = 1;
    static final int CLAIMED = 2;
    final AtomicInteger state = new AtomicInteger(BUSY);
    private final NioHttpClient client;
    final SocketChannel ch;
    final String hostKey;
    SelectionKey key;
    boolean connected;
    NioHttpClient.Call call;
    ByteBuffer out;
    long lastActivityNanos = System.nanoTime();
    /** Until when the connection may be taken from the pool (the server's stated keep-alive timeout, less a margin). */
    long idleUntilNanos = Long.MAX_VALUE;
    /** It carried a response before the current request: a failure before any byte may be the server's close. */
    boolean reused;
    private int responses;
    private long readNanos;
    private final ResponseParser response = new ResponseParser();

    NioConnection(NioHttpClient client, SocketChannel ch, String hostKey) {
        this.client = client;
        this.ch = ch;
        this.hostKey = hostKey;
    }

    void resetResponse() {
        response.reset();
        reused = responses > 0;
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
        final NioHttpClient.Call c = call;
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

    private void writeRequest(SelectionKey k, NioHttpClient.Call c) throws IOException {
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
        if (client.round.buffer.remaining() < ReadRound.MIN_READ_SPACE) {
            client.round.parse();
        }
        final int start = client.round.buffer.position();
        final int n = ch.read(client.round.buffer);
        if (n != 0) {
            client.round.add(this, start, n, System.nanoTime());
        }
    }

    /** Parses one read of this connection: {@code n} bytes at {@code start} of the round's buffer, or end of stream. */
    void consume(int start, int n, long readNanos) throws IOException {
        if (!ch.isOpen()) {
            return;
        }
        if (n < 0) {
            if (call != null && response.endsAtClose()) {
                final NioHttpClient.Call c = call;
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
        client.round.buffer.limit(start + n).position(start);
        // Stop at the end of this call's response: once the connection is back in the pool, a
        // dispatching thread may already have given it the next call.
        final NioHttpClient.Call owner = call;
        if (owner != null) {
            owner.responded = true;
        }
        while (client.round.buffer.hasRemaining() && owner != null && call == owner && !owner.done) {
            response.step(client.round.buffer, this);
        }
    }

    @Override
    public void status(int code) {
        client.worker.status(call.exchange, code);
    }

    @Override
    public void body(ByteBuffer slice) {
        client.worker.body(call.exchange, slice, readNanos);
    }

    @Override
    public void end(boolean keepAlive) {
        final NioHttpClient.Call c = call;
        finishResponse(keepAlive);
        c.succeed();
    }

    /** The response is complete: the connection goes back to the pool or is closed. */
    private void finishResponse(boolean reuse) {
        client.active.remove(this);
        call = null;
        responses++;
        final long keepAliveS = response.keepAliveTimeoutS();
        if (keepAliveS > 0) {
            // a second less than the server said, so that a connection is not sent on as the server drops it
            idleUntilNanos = System.nanoTime() + (keepAliveS - 1) * 1_000_000_000L;
        }
        if (reuse && ch.isOpen() && response.keepAliveMax() != 0 && (keepAliveS < 0 || keepAliveS > 1)) {
            key.interestOps(SelectionKey.OP_READ);
            state.set(POOLED);
            client.idle.computeIfAbsent(hostKey, h -> new ConcurrentLinkedDeque<>()).add(this);
            client.startWaiting(hostKey);
        } else {
            closeQuietly();
        }
    }

    void closeQuietly() {
        if (!ch.isOpen()) {
            return;
        }
        client.open.merge(hostKey, -1, Integer::sum);
        client.active.remove(this);
        final ConcurrentLinkedDeque<NioConnection> pool = client.idle.get(hostKey);
        if (pool != null) {
            pool.remove(this);
        }
        if (key != null) {
            key.cancel();
        }
        try {
            ch.close();
        } catch (IOException e) {
            client.LOG.debug("close: {}", e.getMessage());
        }
        client.startWaiting(hostKey);
    }
}

package dev.goodput.proxy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/** A connection to the upstream: it writes one exchange's request, then reads its answer; kept alive between exchanges. */
final class Upstream {

    private final NioProxy proxy;
    final SocketChannel ch;
    SelectionKey key;
    boolean connected;
    /** The exchange the connection carries, or null while it is idle in the pool. */
    ProxyExchange exchange;
    /** Request bytes not yet written. */
    private ByteBuffer out;
    /** Whether the exchange's response is paused because its client reads slower. */
    private boolean paused;

    Upstream(NioProxy proxy, SocketChannel ch) {
        this.proxy = proxy;
        this.ch = ch;
    }

    /** Writes the request now if the connection is up, else once it is. */
    void send(byte[] request) throws IOException {
        out = ByteBuffer.wrap(request);
        paused = false;
        if (connected) {
            write();
        }
    }

    void ready(SelectionKey k) {
        final ProxyExchange e = exchange;
        try {
            if (k.isConnectable()) {
                ch.finishConnect();
                connected = true;
                k.interestOps(0);
                if (out != null) {
                    write();
                }
            }
            if (k.isValid() && k.isWritable() && out != null) {
                write();
            }
            if (k.isValid() && k.isReadable()) {
                read(e);
            }
        } catch (IOException ex) {
            if (e != null) {
                e.upstreamBroke(ex);
            } else {
                close();
            }
        }
    }

    private void write() throws IOException {
        // the actual send is when the request's first byte is handed to the socket, as in the generator
        if (out.position() == 0 && exchange != null) {
            exchange.sent(System.nanoTime());
        }
        ch.write(out);
        if (out.hasRemaining()) {
            key.interestOps(SelectionKey.OP_WRITE);
        } else {
            out = null;
            key.interestOps(paused ? 0 : SelectionKey.OP_READ);
        }
    }

    private void read(ProxyExchange e) throws IOException {
        final ByteBuffer buf = proxy.read;
        buf.clear();
        final int n = ch.read(buf);
        final long nanos = System.nanoTime();
        if (e == null) {
            // an idle connection became readable: the upstream closed it, or sent what nobody asked for
            close();
            return;
        }
        if (n < 0) {
            e.upstreamBroke(new EOFException("the upstream closed the connection before the response ended"));
            return;
        }
        if (n > 0) {
            buf.flip();
            e.upstreamBytes(buf, nanos);
        }
    }

    /** Stops reading the response until the client has taken what it was given. */
    void pause() {
        paused = true;
        if (key.isValid() && out == null) {
            key.interestOps(0);
        }
    }

    void resume() {
        paused = false;
        if (key.isValid() && out == null) {
            key.interestOps(SelectionKey.OP_READ);
        }
    }

    /** Back to the pool, reading so that a close by the upstream is seen while it waits. */
    void release() {
        paused = false;
        key.interestOps(SelectionKey.OP_READ);
        proxy.release(this);
    }

    void close() {
        if (!ch.isOpen()) {
            return;
        }
        exchange = null;
        if (key != null) {
            key.cancel();
        }
        try {
            ch.close();
        } catch (IOException e) {
            NioProxy.LOG.debug("closing an upstream connection: {}", e.toString());
        }
        proxy.closed(this);
    }
}

package dev.goodput.proxy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A client's connection to the proxy: requests are read one at a time (kept alive, pipelined ones
 * wait their turn), and answers are written as they come. What the client's socket cannot take at
 * once waits here, and the upstream connection that sent it pauses until it has gone.
 */
final class ClientSide {

    private static final int MAX_HEAD = 64 * 1024;
    private static final int MAX_BODY = 64 * 1024 * 1024;
    private static final int INITIAL = 8 * 1024;
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

    private final NioProxy proxy;
    final SocketChannel ch;
    SelectionKey key;
    private byte[] in = new byte[INITIAL];
    private int inLength;
    /** When the first byte of the request being read arrived. */
    private long firstByteNanos = -1;
    /** The exchange whose answer the client is getting, or null between requests. */
    ProxyExchange current;
    /** The client asked for the connection to close after this answer (or speaks HTTP/1.0). */
    boolean closeAfter;
    private boolean continueSent;
    /** Bytes the client's socket has not taken yet, in fill mode; null when there are none. */
    private ByteBuffer pending;
    /** When bytes last went either way. */
    private long lastActivityNanos = System.nanoTime();

    ClientSide(NioProxy proxy, SocketChannel ch) {
        this.proxy = proxy;
        this.ch = ch;
    }

    /** Between requests: its answer has gone whole and nothing of the next request has been read. */
    boolean waitsForRequest() {
        return current == null && pending == null && inLength == 0 && !closeAfter;
    }

    void ready(SelectionKey k) {
        try {
            if (k.isWritable()) {
                flush();
            }
            if (k.isValid() && k.isReadable()) {
                read();
            }
        } catch (IOException e) {
            gone();
        }
    }

    private void read() throws IOException {
        if (inLength == in.length) {
            if (in.length >= MAX_HEAD + MAX_BODY) {
                reject(413, "the request is over " + (MAX_BODY >> 20) + " MiB");
                return;
            }
            in = Arrays.copyOf(in, in.length * 2);
        }
        final int n = ch.read(ByteBuffer.wrap(in, inLength, in.length - inLength));
        final long nanos = System.nanoTime();
        if (n < 0) {
            gone();
            return;
        }
        if (n == 0) {
            return;
        }
        lastActivityNanos = nanos;
        if (inLength == 0) {
            firstByteNanos = nanos;
        }
        inLength += n;
        if (current == null) {
            nextRequest();
        }
    }

    /** Starts the exchange of the next whole request read, if there is one. */
    private void nextRequest() {
        if (inLength == 0 || current != null || !ch.isOpen() || closeAfter) {
            return;
        }
        final int headEnd = RequestHead.headEnd(in, inLength);
        if (headEnd < 0) {
            if (inLength > MAX_HEAD) {
                reject(431, "the request head is over " + (MAX_HEAD >> 10) + " KiB");
            }
            return;
        }
        final RequestHead head;
        final byte[] body;
        final int consumed;
        try {
            head = RequestHead.parse(in, headEnd);
            if (head.chunked()) {
                final RequestHead.Body b = RequestHead.dechunk(in, headEnd, inLength);
                if (b == null) {
                    askForBody(head);
                    return;
                }
                body = b.data();
                consumed = headEnd + b.consumed();
            } else {
                if (head.contentLength() > MAX_BODY || head.contentLength() < 0) {
                    reject(413, "the request body is over " + (MAX_BODY >> 20) + " MiB");
                    return;
                }
                if (inLength - headEnd < head.contentLength()) {
                    askForBody(head);
                    return;
                }
                consumed = headEnd + (int) head.contentLength();
                body = Arrays.copyOfRange(in, headEnd, consumed);
            }
        } catch (RequestHead.Malformed e) {
            reject(400, e.getMessage());
            return;
        }
        final long arrival = firstByteNanos;
        // what follows belongs to the next request
        System.arraycopy(in, consumed, in, 0, inLength - consumed);
        inLength -= consumed;
        firstByteNanos = inLength > 0 ? System.nanoTime() : -1;
        if (inLength == 0 && in.length > MAX_HEAD) {
            in = new byte[INITIAL];
        }
        continueSent = false;
        closeAfter = head.closeAfter();
        current = new ProxyExchange(proxy, this, head, body, arrival);
        current.begin();
    }

    /** A client that waits for a 100 before it sends its body gets it. */
    private void askForBody(RequestHead head) {
        if (head.expectContinue() && !continueSent) {
            continueSent = true;
            send(ByteBuffer.wrap(CONTINUE));
        }
    }

    /** Answers a request the proxy cannot take, and closes the connection once the answer has gone. */
    private void reject(int status, String message) {
        closeAfter = true;
        send(ByteBuffer.wrap(ProxyExchange.errorResponse(status, message, true)));
        if (pending == null) {
            close();
        }
    }

    /** Hands bytes to the client: at once when its socket takes them, else they wait and the upstream pauses. */
    void send(ByteBuffer... parts) {
        if (!ch.isOpen()) {
            return;
        }
        if (pending == null) {
            try {
                ch.write(parts);
            } catch (IOException e) {
                gone();
                return;
            }
        }
        for (ByteBuffer p : parts) {
            if (p.hasRemaining()) {
                if (pending == null) {
                    pending = ByteBuffer.allocate(Math.max(INITIAL, p.remaining()));
                } else if (pending.remaining() < p.remaining()) {
                    final ByteBuffer grown = ByteBuffer.allocate(pending.position() + p.remaining() + INITIAL);
                    pending.flip();
                    grown.put(pending);
                    pending = grown;
                }
                pending.put(p);
            }
        }
        if (pending != null) {
            key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            if (current != null) {
                current.pauseUpstream();
            }
        }
    }

    private void flush() throws IOException {
        if (pending == null) {
            key.interestOps(SelectionKey.OP_READ);
            return;
        }
        pending.flip();
        if (ch.write(pending) > 0) {
            lastActivityNanos = System.nanoTime();
        }
        pending.compact();
        if (pending.position() > 0) {
            return;
        }
        pending = null;
        key.interestOps(SelectionKey.OP_READ);
        if (current != null) {
            current.resumeUpstream();
        } else if (closeAfter) {
            close();
        }
    }

    /** How long the connection has been idle at {@code now}: carried no bytes, with no answer in progress; 0 while busy. */
    long idleSince(long now) {
        return current != null || pending != null ? 0 : now - lastActivityNanos;
    }

    /** The current exchange has handed over its whole answer: the next request may start. */
    void finished() {
        current = null;
        lastActivityNanos = System.nanoTime();
        if (closeAfter) {
            if (pending == null) {
                close();
            }
            return;
        }
        nextRequest();
    }

    /** The client closed its connection or cannot be written to: its exchange, if any, is abandoned. */
    void gone() {
        final ProxyExchange e = current;
        current = null;
        close();
        if (e != null) {
            e.clientGone();
        }
    }

    void close() {
        proxy.clients.remove(this);
        if (key != null) {
            key.cancel();
        }
        try {
            ch.close();
        } catch (IOException e) {
            NioProxy.LOG.debug("closing a client connection: {}", e.toString());
        }
    }
}

package dev.goodput.proxy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import dev.goodput.capture.HttpBytes;
import dev.goodput.capture.RequestExecution;
import dev.goodput.capture.ResponseParser;

/**
 * One request through the selector proxy, on the selector thread: it goes upstream (once more on
 * a fresh connection if a kept-alive one turns out closed before any answer), and each read of the
 * answer goes to the client as it came, its head rewritten without hop-by-hop headers. The body
 * is re-cut into chunks only when it must be: the upstream ends it by closing the connection, or
 * the proxy keeps the usage event it asked for from the client; an HTTP/1.0 client gets it without
 * chunks, ending at the close.
 */
final class ProxyExchange implements ResponseParser.Listener {

    /** How an answer's body reaches the client. */
    private enum Body {
        /** Each read as it came, framing included. */
        RAW,
        /** Re-cut into chunks: the upstream ends it at its close, or the proxy keeps the usage event from the client. */
        CHUNKS,
        /** Without framing, ending at the close: an HTTP/1.0 client, which cannot read chunks. */
        PLAIN
    }

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

    private final NioProxy proxy;
    private final ClientSide client;
    private final RequestHead head;
    private final byte[] request;
    private final Observation observation;
    private final UsageStripper stripper;
    private final long deadlineNanos;
    private long lastActivityNanos;
    private Upstream up;
    private boolean retried;
    private boolean sentReported;
    private final ResponseParser parser = new ResponseParser();
    private final List<String> headLines = new ArrayList<>();
    private final List<ByteBuffer> out = new ArrayList<>(4);
    private int status;
    /** How the body reaches the client. */
    private Body body = Body.RAW;
    private boolean answered;
    private boolean headWritten;
    private boolean responseDone;
    private boolean keepAlive;
    private boolean ended;
    private long readNanos;
    /** The upstream is paused for a slow client: the silence is the client's, not a stall. */
    private boolean paused;

    ProxyExchange(NioProxy proxy, ClientSide client, RequestHead head, byte[] body, long arrivalNanos) {
        this.proxy = proxy;
        this.client = client;
        this.head = head;
        final ProxyServer p = proxy.proxy;
        this.deadlineNanos = arrivalNanos + p.target.requestTimeout().toNanos();
        byte[] upstreamBody = body;
        final boolean completions = ProxyServer.observedPath(head.method(), head.rawPath());
        // forwarding never waits for observing: a call the observer is too far behind to take on goes on, counted
        if (!completions || proxy.worker.backlog() > p.observerBacklog()) {
            (completions ? p.unobserved : p.passedThrough).incrementAndGet();
            this.observation = null;
            this.stripper = null;
        } else {
            p.observed.incrementAndGet();
            JsonNode json = null;
            byte[] asked = null;
            if (p.askUsage()) {
                // the body changes, so it is read here rather than on the observing thread
                json = ProxyServer.parse(body);
                asked = p.withUsageAsked(json);
            }
            this.stripper = asked == null ? null : new UsageStripper();
            upstreamBody = asked == null ? body : asked;
            this.observation = new Observation(p, body, json, head.rawPath().endsWith("/chat/completions"), arrivalNanos,
                    new ClientIds(head.header("X-Request-Id"), head.header(ClientIds.SESSION_HEADER)), head.credentials(),
                    cause -> proxy.execute(() -> fail(cause)));
        }
        this.request = head.forUpstream(p.upstreamPath(head.rawPath(), head.rawQuery()), proxy.upstreamHost, upstreamBody);
    }

    void begin() {
        if (observation != null) {
            proxy.worker.task(observation::begin);
        }
        proxy.active.add(this);
        lastActivityNanos = System.nanoTime();
        proxy.connect(this);
    }

    /** The exchange has a connection: the request goes on it. */
    void start(Upstream u, boolean reused) {
        up = u;
        u.exchange = this;
        retried |= !reused;
        parser.reset("HEAD".equals(head.method()));
        try {
            u.send(request);
        } catch (IOException e) {
            upstreamBroke(e);
        }
    }

    /** The request's first byte went to the upstream. */
    void sent(long nanos) {
        if (!sentReported && observation != null) {
            sentReported = true;
            proxy.worker.task(() -> observation.sentAt(nanos));
        }
    }

    /** Whether any of the answer has come: until then, its client's TTFT waits on this exchange. */
    boolean answered() {
        return answered;
    }

    /** A read of the answer: parsed for its end (and observed), and handed to the client as it came. */
    void upstreamBytes(ByteBuffer buf, long nanos) {
        if (ended) {
            return;
        }
        readNanos = nanos;
        lastActivityNanos = nanos;
        answered = true;
        int rawStart = buf.position();
        try {
            while (buf.hasRemaining() && !responseDone) {
                final boolean inHead = !parser.inBody();
                parser.step(buf, this);
                if (inHead) {
                    rawStart = buf.position();
                }
            }
        } catch (IOException | RuntimeException e) {
            upstreamBroke(new IOException("malformed response from the upstream: " + e.getMessage(), e));
            return;
        }
        if (body == Body.RAW && buf.position() > rawStart) {
            out.add(buf.duplicate().limit(buf.position()).position(rawStart));
        }
        if (responseDone) {
            endBody();
        }
        flush();
        if (responseDone) {
            finish();
        }
    }

    @Override
    public void status(int code) {
        status = code;
        if (observation != null) {
            proxy.worker.status(observation, code);
        }
    }

    @Override
    public void headLine(String line) {
        headLines.add(line);
    }

    @Override
    public void headEnd() {
        final boolean bodiless = "HEAD".equals(head.method()) || status == 204 || status == 304;
        final boolean recut = stripper != null || !parser.delimited();
        if (bodiless || (!recut && !(head.http10() && parser.chunked()))) {
            body = Body.RAW;
        } else if (head.http10()) {
            body = Body.PLAIN;
            client.closeAfter = true;
        } else {
            body = Body.CHUNKS;
        }
        final boolean reframed = body != Body.RAW;
        final StringBuilder sb = new StringBuilder(256);
        sb.append(headLines.get(0)).append("\r\n");
        final List<String> names = new ArrayList<>(headLines.size());
        String connection = null;
        for (int i = 1; i < headLines.size(); i++) {
            final String line = headLines.get(i);
            final String name = line.substring(0, Math.max(0, line.indexOf(':'))).trim().toLowerCase(Locale.ROOT);
            names.add(name);
            if (name.equals("connection")) {
                connection = connection == null ? line.substring(line.indexOf(':') + 1) : connection + "," + line.substring(line.indexOf(':') + 1);
            }
        }
        final Set<String> named = RequestHead.connectionOptions(connection);
        for (int i = 1; i < headLines.size(); i++) {
            final String line = headLines.get(i);
            final String name = names.get(i - 1);
            if (ProxyServer.HOP_BY_HOP.contains(name) || named.contains(name) || (reframed && (name.equals("content-length") || name.equals("transfer-encoding")))) {
                continue;
            }
            sb.append(line).append("\r\n");
        }
        if (body == Body.CHUNKS) {
            sb.append("Transfer-Encoding: chunked\r\n");
        }
        if (client.closeAfter) {
            sb.append("Connection: close\r\n");
        }
        sb.append("\r\n");
        out.add(ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.ISO_8859_1)));
        headWritten = true;
    }

    @Override
    public void body(ByteBuffer slice) {
        if (observation != null) {
            proxy.worker.body(observation, slice.duplicate(), readNanos);
        }
        if (body != Body.RAW) {
            final byte[] bytes = new byte[slice.remaining()];
            slice.get(bytes);
            chunk(stripper != null && status == 200 ? stripper.feed(bytes) : bytes);
        }
    }

    /** Bytes of a re-framed body: a chunk, or as they are to an HTTP/1.0 client. */
    private void chunk(byte[] bytes) {
        if (body == Body.PLAIN) {
            if (bytes.length > 0) {
                out.add(ByteBuffer.wrap(bytes));
            }
        } else if (bytes.length > 0) {
            out.add(ByteBuffer.wrap((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1)));
            out.add(ByteBuffer.wrap(bytes));
            out.add(ByteBuffer.wrap(CRLF));
        }
    }

    @Override
    public void end(boolean reusable) {
        responseDone = true;
        keepAlive = reusable;
    }

    private void endBody() {
        if (body != Body.RAW && stripper != null) {
            chunk(stripper.rest());
        }
        if (body == Body.CHUNKS) {
            out.add(ByteBuffer.wrap(LAST_CHUNK));
        }
    }

    private void flush() {
        if (!out.isEmpty()) {
            client.send(out.toArray(new ByteBuffer[0]));
            out.clear();
        }
    }

    /** The answer has gone to the client whole: the connection goes back to the pool, the client may ask again. */
    private void finish() {
        ended = true;
        proxy.active.remove(this);
        if (observation != null) {
            proxy.worker.end(observation, null, System.nanoTime());
        }
        final Upstream u = up;
        up = null;
        if (keepAlive && u.ch.isOpen()) {
            u.release();
        } else {
            u.close();
        }
        client.finished();
    }

    /** The upstream connection closed or failed. */
    void upstreamBroke(IOException e) {
        if (ended) {
            return;
        }
        if (parser.endsAtClose()) {
            // a body that runs until the connection closes has ended
            responseDone = true;
            keepAlive = false;
            endBody();
            flush();
            finish();
            return;
        }
        if (!answered && !retried) {
            // a kept-alive connection the upstream had closed before it saw the request: once more, on a new one
            retried = true;
            final Upstream u = up;
            up = null;
            u.close();
            if (observation != null) {
                proxy.worker.task(() -> observation.resent("the reused connection failed before any response byte: " + e));
            }
            proxy.connect(this);
            return;
        }
        fail(e);
    }

    /** The exchange fails: the client gets a 502 (504 on a timeout) if it has had nothing yet, else its connection is cut. */
    void fail(Throwable cause) {
        if (!stop(cause)) {
            return;
        }
        if (headWritten) {
            client.gone();
            return;
        }
        out.clear();
        client.send(ByteBuffer.wrap(errorResponse(cause instanceof TimeoutException ? 504 : 502,
                "goodput proxy: upstream failed: " + cause, client.closeAfter)));
        client.finished();
    }

    /** The client went away: the upstream request is cancelled (its connection closed) and the call recorded abandoned. */
    void clientGone() {
        stop(RequestExecution.abandonment());
    }

    /** Ends the exchange with a failure: the upstream connection is closed (a cancel), the observer told. False if it had ended. */
    private boolean stop(Throwable cause) {
        if (ended) {
            return false;
        }
        ended = true;
        proxy.active.remove(this);
        proxy.leaveQueue(this);
        if (up != null) {
            up.close();
            up = null;
        }
        if (observation != null) {
            proxy.worker.end(observation, cause, System.nanoTime());
        }
        return true;
    }

    /** The stall timeout runs once the answer has begun: a request queued upstream gets nothing, and that wait is TTFT. */
    void checkTimeouts(long now) {
        if (now - deadlineNanos >= 0) {
            fail(new TimeoutException((answered ? "total timeout " : "no response head within ")
                    + proxy.proxy.target.requestTimeout().toMillis() + " ms"));
        } else if (up != null && answered && !paused && now - lastActivityNanos >= proxy.proxy.target.stallTimeout().toNanos()) {
            fail(new TimeoutException("Idle timeout " + proxy.proxy.target.stallTimeout().toMillis() + " ms"));
        }
    }

    void pauseUpstream() {
        paused = true;
        if (up != null) {
            up.pause();
        }
    }

    void resumeUpstream() {
        paused = false;
        lastActivityNanos = System.nanoTime();
        if (up != null) {
            up.resume();
        }
    }

    /** A JSON error answer from the proxy itself. */
    static byte[] errorResponse(int status, String message, boolean close) {
        final String body;
        try {
            body = "{\"error\":{\"message\":" + ProxyServer.JSON.writeValueAsString(message) + ",\"type\":\"proxy_error\"}}";
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        final byte[] b = body.getBytes(StandardCharsets.UTF_8);
        final String reason = switch (status) {
            case 400 -> "Bad Request";
            case 413 -> "Content Too Large";
            case 431 -> "Request Header Fields Too Large";
            case 504 -> "Gateway Timeout";
            default -> "Bad Gateway";
        };
        return HttpBytes.message("HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: application/json\r\nContent-Length: " + b.length
                + "\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n", b);
    }
}

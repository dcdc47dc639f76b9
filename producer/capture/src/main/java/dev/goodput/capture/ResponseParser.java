package dev.goodput.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * HTTP/1.x response framing, fed bytes as they are read: the status line, the headers, then the
 * body by content length, by chunked encoding, or until the connection closes. Body bytes are handed
 * on as slices of the read buffer, never copied. One per connection; reset for each response.
 */
public final class ResponseParser {

    /** What a response is made of, as it is parsed. */
    public interface Listener {
        void status(int code);

        /** The status line or a header line, as it came (without its line end): for those who hand the head on. */
        default void headLine(String line) {
        }

        /** The head ended (its blank line): called before any body byte, and before {@link #end} of a response without a body. */
        default void headEnd() {
        }

        /** Body bytes (chunk framing removed), a slice of the read buffer valid during the call. */
        void body(ByteBuffer slice);

        /** The response ended; whether the connection may carry another request. */
        void end(boolean keepAlive);
    }

    private static final int STATUS = 0;
    private static final int HEADERS = 1;
    private static final int BODY = 2;
    // chunked body: size line, data, CRLF after data, trailers
    private static final int SIZE = 0;
    private static final int DATA = 1;
    private static final int DATA_END = 2;
    private static final int TRAILERS = 3;

    private final StringBuilder line = new StringBuilder(128);
    private int phase;
    private boolean chunked;
    /** -1: until the connection closes. */
    private long contentLength;
    private boolean keepAlive;
    private int chunkPhase;
    private long chunkRemaining;
    /** The request was a HEAD: the response has a head only, whatever its length header says. */
    private boolean headOnly;
    private int status;
    /** The {@code Keep-Alive} header's {@code timeout} and {@code max}, or -1 when not given. */
    private long keepAliveTimeoutS;
    private long keepAliveMax;

    public ResponseParser() {
        reset();
    }

    public void reset() {
        reset(false);
    }

    /** Readies the parser for the next response; {@code headRequest}: the response answers a HEAD request. */
    public void reset(boolean headRequest) {
        headOnly = headRequest;
        status = 0;
        line.setLength(0);
        phase = STATUS;
        chunked = false;
        contentLength = -1;
        keepAlive = true;
        keepAliveTimeoutS = -1;
        keepAliveMax = -1;
        chunkPhase = SIZE;
        chunkRemaining = 0;
    }

    /** Whether the head has been read whole. */
    public boolean inBody() {
        return phase == BODY;
    }

    /** Whether the body is sent in chunks. */
    public boolean chunked() {
        return chunked;
    }

    /** Whether the response says where its body ends (chunks or a length), rather than at the connection's close. */
    public boolean delimited() {
        return chunked || contentLength >= 0;
    }

    /** Whether the body runs until the connection closes, and has begun: a close then ends it well. */
    public boolean endsAtClose() {
        return phase == BODY && !chunked && contentLength < 0;
    }

    /** Parses one step (a header byte, or a run of body bytes) from {@code in}, which has bytes. */
    public void step(ByteBuffer in, Listener l) throws IOException {
        if (phase < BODY) {
            headerByte(in.get(), l);
        } else if (!chunked) {
            int n = in.remaining();
            if (contentLength >= 0) {
                n = (int) Math.min(n, contentLength);
                contentLength -= n;
            }
            deliver(in, n, l);
            if (contentLength == 0) {
                l.end(keepAlive);
            }
        } else {
            chunkStep(in, l);
        }
    }

    /** Takes a byte of a CRLF-ended line; returns the line once it ends, else null. */
    private String lineEnd(byte b) {
        if (b == '\r') {
            return null;
        }
        if (b != '\n') {
            line.append((char) (b & 0xff));
            return null;
        }
        final String text = line.toString();
        line.setLength(0);
        return text;
    }

    private void headerByte(byte b, Listener l) throws IOException {
        final String text = lineEnd(b);
        if (text == null) {
            return;
        }
        if (phase == STATUS) {
            final String[] parts = text.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
                throw new IOException("not an HTTP/1.x response: " + text);
            }
            keepAlive = !parts[0].equals("HTTP/1.0");
            status = Integer.parseInt(parts[1].trim());
            l.status(status);
            l.headLine(text);
            phase = HEADERS;
        } else if (text.isEmpty()) {
            phase = BODY;
            l.headEnd();
            if (headOnly || status == 204 || status == 304) {
                // no body, whatever the length headers say (RFC 9112 section 6.3)
                l.end(keepAlive);
            } else if (!chunked && contentLength == 0) {
                l.end(keepAlive);
            }
        } else {
            l.headLine(text);
            final int colon = text.indexOf(':');
            if (colon > 0) {
                final String name = text.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                final String value = text.substring(colon + 1).trim();
                if (name.equals("transfer-encoding") && value.toLowerCase(Locale.ROOT).contains("chunked")) {
                    chunked = true;
                } else if (name.equals("content-length")) {
                    contentLength = Long.parseLong(value);
                } else if (name.equals("connection")) {
                    keepAlive = !value.equalsIgnoreCase("close");
                } else if (name.equals("keep-alive")) {
                    keepAliveParameters(value);
                }
            }
        }
    }

    /** {@code Keep-Alive: timeout=5, max=100} (RFC 2068 section 19.7.1.1); unknown or malformed parameters are ignored. */
    private void keepAliveParameters(String value) {
        for (String part : value.split(",")) {
            final String[] kv = part.trim().split("=", 2);
            if (kv.length == 2) {
                try {
                    final long n = Long.parseLong(kv[1].trim());
                    if (kv[0].trim().equalsIgnoreCase("timeout")) {
                        keepAliveTimeoutS = n;
                    } else if (kv[0].trim().equalsIgnoreCase("max")) {
                        keepAliveMax = n;
                    }
                } catch (NumberFormatException ignored) {
                    // a parameter that is not a number says nothing we act on
                }
            }
        }
    }

    /** Seconds the server keeps an idle connection, as its {@code Keep-Alive} header said; -1 when not said. */
    public long keepAliveTimeoutS() {
        return keepAliveTimeoutS;
    }

    /** Requests the server still allows on the connection, as its {@code Keep-Alive} header said; -1 when not said. */
    public long keepAliveMax() {
        return keepAliveMax;
    }

    private void chunkStep(ByteBuffer in, Listener l) throws IOException {
        switch (chunkPhase) {
            case SIZE, TRAILERS -> {
                final String text = lineEnd(in.get());
                if (text == null) {
                    return;
                }
                if (chunkPhase == TRAILERS) {
                    if (text.isEmpty()) {
                        l.end(keepAlive);
                    }
                    return;
                }
                final int semi = text.indexOf(';');
                final long size = Long.parseLong((semi >= 0 ? text.substring(0, semi) : text).trim(), 16);
                if (size == 0) {
                    chunkPhase = TRAILERS;
                } else {
                    chunkRemaining = size;
                    chunkPhase = DATA;
                }
            }
            case DATA -> {
                final int n = (int) Math.min(in.remaining(), chunkRemaining);
                deliver(in, n, l);
                chunkRemaining -= n;
                if (chunkRemaining == 0) {
                    chunkPhase = DATA_END;
                }
            }
            default -> {
                final byte b = in.get();
                if (b == '\n') {
                    chunkPhase = SIZE;
                } else if (b != '\r') {
                    throw new IOException("malformed chunked encoding");
                }
            }
        }
    }

    private static void deliver(ByteBuffer in, int n, Listener l) {
        final ByteBuffer slice = in.slice();
        slice.limit(n);
        in.position(in.position() + n);
        l.body(slice);
    }
}

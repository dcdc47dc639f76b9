package dev.goodput.simulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One client connection: HTTP/1.1 request parsing, keep-alive, and buffered non-blocking writes. */
final class SimConnection {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Logger LOG = LoggerFactory.getLogger(SimConnection.class);

    private final SimServer server;
    final SocketChannel ch;
    SelectionKey key;
    private byte[] in = new byte[4096];
    private int inLength;
    private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
    private boolean busy;
    private boolean closeAfterResponse;
    private boolean closed;
    Engine.Sequence active;

    SimConnection(SimServer server, SocketChannel ch) {
        this.server = server;
        this.ch = ch;
    }

    void read() {
        int n;
        try {
            server.readBuffer.clear();
            n = ch.read(server.readBuffer);
        } catch (IOException e) {
            n = -1;
        }
        if (n < 0) {
            close();
            return;
        }
        server.readBuffer.flip();
        if (inLength + n > in.length) {
            in = Arrays.copyOf(in, Math.max(in.length * 2, inLength + n));
        }
        server.readBuffer.get(in, inLength, n);
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
        final long receivedUs = server.clock.nowMicros();
        final String id = requestId != null ? requestId : "sim-" + server.nextId();
        final String route = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
        switch (method + " " + route) {
            case "POST /v1/chat/completions", "POST /v1/completions" -> {
                final JsonNode request;
                try {
                    request = JSON.readTree(body);
                } catch (IOException e) {
                    // the trace first: a client that has its answer can read the trace of it at once
                    server.finished(new SimTrace(id, receivedUs, -1, -1, 0, 0, 0, 0, 400, "bad_request"));
                    respond(400, json("{\"error\":{\"message\":\"body is not JSON\",\"type\":\"invalid_request_error\"}}"));
                    return;
                }
                if (!request.path("stream").asBoolean(false)) {
                    server.finished(new SimTrace(id, receivedUs, -1, -1, 0, 0, 0, 0, 400, "bad_request"));
                    respond(400, json("{\"error\":{\"message\":\"the simulator serves stream=true only\","
                            + "\"type\":\"invalid_request_error\"}}"));
                    return;
                }
                server.engine.submit(this, id, receivedUs, route.endsWith("chat/completions"), request);
            }
            case "GET /v1/models" -> respond(200, json("{\"object\":\"list\",\"data\":[{\"id\":\""
                    + server.engine.config().model() + "\",\"object\":\"model\",\"owned_by\":\"goodput\"}]}"));
            case "GET /health" -> respond(200, json("{\"status\":\"ok\"}"));
            // vLLM answers GET /version the same way; the report bundle records it
            case "GET /version" -> respond(200, json("{\"version\":\"" + SimServer.VERSION + "\"}"));
            case "GET /sim/trace" -> respond(200, traceLines());
            default -> respond(404, json("{\"error\":{\"message\":\"no route " + method + " " + route
                    + "\",\"type\":\"not_found\"}}"));
        }
    }

    private Body traceLines() {
        final StringBuilder sb = new StringBuilder();
        for (SimTrace t : server.drainTraces()) {
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
            server.engine.cancel(active);
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

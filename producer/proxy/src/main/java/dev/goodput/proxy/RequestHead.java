package dev.goodput.proxy;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.goodput.capture.HttpBytes;
import dev.goodput.config.Redact;

/**
 * A client's request head as the proxy reads it (HTTP/1.1, RFC 9112): the request line, the header
 * lines in order, and how the body is framed. Parsing fails with {@link Malformed}, which the proxy
 * answers with a 400.
 */
record RequestHead(String method, String rawPath, String rawQuery, boolean http10, List<String[]> headers, long contentLength,
                   boolean chunked, boolean closeAfter, boolean expectContinue) {

    /** Headers the proxy does not hand upstream: hop-by-hop ones (RFC 9110 section 7.6.1), and those it sets itself. */
    static final Set<String> NOT_FORWARDED = ProxyServer.with(ProxyServer.HOP_BY_HOP, "transfer-encoding", "host", "content-length",
            "expect");

    /** A request the proxy cannot read. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    /** The index just past the blank line that ends a head starting at 0 in {@code b[0, n)}, or -1. */
    static int headEnd(byte[] b, int n) {
        for (int i = 3; i < n; i++) {
            if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    /** Parses the head in {@code b[0, end)}, which ends with its blank line. */
    static RequestHead parse(byte[] b, int end) throws Malformed {
        final List<String> lines = lines(b, end - 4);
        final String[] request = lines.get(0).split(" ");
        if (request.length != 3 || !request[2].startsWith("HTTP/1.")) {
            throw new Malformed("not an HTTP/1.x request line: " + lines.get(0));
        }
        String target = request[1];
        if (target.startsWith("http://") || target.startsWith("https://")) {
            final URI absolute = URI.create(target);
            target = (absolute.getRawPath() == null || absolute.getRawPath().isEmpty() ? "/" : absolute.getRawPath())
                    + (absolute.getRawQuery() == null ? "" : "?" + absolute.getRawQuery());
        }
        if (!target.startsWith("/")) {
            throw new Malformed("the request target must be a path: " + request[1]);
        }
        final int q = target.indexOf('?');
        final boolean http10 = request[2].equals("HTTP/1.0");
        boolean close = http10;
        long length = 0;
        boolean chunked = false;
        boolean expect = false;
        final List<String[]> headers = new ArrayList<>(lines.size());
        for (int i = 1; i < lines.size(); i++) {
            final String line = lines.get(i);
            final int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new Malformed("not a header line: " + line);
            }
            final String name = line.substring(0, colon).trim();
            final String value = line.substring(colon + 1).trim();
            headers.add(new String[] {name, value});
            switch (name.toLowerCase(Locale.ROOT)) {
                case "content-length" -> {
                    try {
                        length = Long.parseLong(value);
                    } catch (NumberFormatException e) {
                        throw new Malformed("Content-Length is not a number: " + value);
                    }
                }
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> {
                    final String v = value.toLowerCase(Locale.ROOT);
                    close = v.contains("close") || (http10 && !v.contains("keep-alive"));
                }
                case "expect" -> expect = value.equalsIgnoreCase("100-continue");
                default -> {
                }
            }
        }
        return new RequestHead(request[0], q < 0 ? target : target.substring(0, q), q < 0 ? null : target.substring(q + 1), http10,
                headers, chunked ? -1 : length, chunked, close, expect);
    }

    /**
     * The lines of {@code b[0, n)}, split at each CRLF, as ISO-8859-1 text (a lone CR or LF stays in
     * its line). Not {@code String.split("\r\n")}: a two-character separator compiles a regex on
     * every call, and this runs once per request on the selector thread.
     */
    static List<String> lines(byte[] b, int n) {
        final List<String> lines = new ArrayList<>(16);
        int from = 0;
        for (int i = 0; i + 1 < n; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                lines.add(new String(b, from, i - from, StandardCharsets.ISO_8859_1));
                from = i + 2;
                i++;
            }
        }
        lines.add(new String(b, from, n - from, StandardCharsets.ISO_8859_1));
        return lines;
    }

    /** A body's data, and how many bytes it took up on the wire. */
    record Body(byte[] data, int consumed) {
    }

    /** The first value of a header, or null. */
    String header(String name) {
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(name)) {
                return h[1];
            }
        }
        return null;
    }

    /** The secret headers (credentials) by name, the first value of each: an observation masks them in errors. */
    Map<String, String> credentials() {
        final Map<String, String> credentials = new LinkedHashMap<>();
        for (String[] h : headers) {
            if (Redact.secretHeader(h[0]) && !credentials.containsKey(h[0])) {
                credentials.put(h[0], h[1]);
            }
        }
        return credentials;
    }

    /**
     * A chunked body's data, if {@code b[from, n)} holds all of it, or null while it has not all come.
     */
    static Body dechunk(byte[] b, int from, int n) throws Malformed {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = from;
        while (true) {
            final int lineEnd = indexOfCrlf(b, at, n);
            if (lineEnd < 0) {
                return null;
            }
            final String sizeLine = new String(b, at, lineEnd - at, StandardCharsets.ISO_8859_1);
            final int semi = sizeLine.indexOf(';');
            final long size;
            try {
                size = Long.parseLong((semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim(), 16);
            } catch (NumberFormatException e) {
                throw new Malformed("malformed chunk size: " + sizeLine);
            }
            at = lineEnd + 2;
            if (size == 0) {
                // trailers, then a blank line
                while (true) {
                    final int end = indexOfCrlf(b, at, n);
                    if (end < 0) {
                        return null;
                    }
                    final boolean blank = end == at;
                    at = end + 2;
                    if (blank) {
                        return new Body(out.toByteArray(), at - from);
                    }
                }
            }
            if (at + size + 2 > n) {
                return null;
            }
            out.write(b, at, (int) size);
            at += (int) size + 2;
        }
    }

    private static int indexOfCrlf(byte[] b, int from, int n) {
        for (int i = from; i + 1 < n; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** The header names a Connection header lists: they belong to this connection too (RFC 9110 section 7.6.1). */
    static Set<String> connectionOptions(String connection) {
        if (connection == null) {
            return Set.of();
        }
        final java.util.HashSet<String> names = new java.util.HashSet<>();
        for (String option : connection.split(",")) {
            names.add(option.trim().toLowerCase(Locale.ROOT));
        }
        return names;
    }

    /** The bytes the upstream gets: the request line with the upstream's path, its host, the end-to-end headers, and the body's length. */
    byte[] forUpstream(String upstreamPath, String host, byte[] body) {
        final StringBuilder sb = new StringBuilder(256 + headers.size() * 40);
        sb.append(method).append(' ').append(upstreamPath).append(" HTTP/1.1\r\nHost: ").append(host).append("\r\n");
        final Set<String> named = connectionOptions(header("Connection"));
        for (String[] h : headers) {
            final String name = h[0].toLowerCase(Locale.ROOT);
            if (!NOT_FORWARDED.contains(name) && !named.contains(name)) {
                sb.append(h[0]).append(": ").append(h[1]).append("\r\n");
            }
        }
        if (body.length > 0 || "POST".equals(method) || "PUT".equals(method) || "PATCH".equals(method)) {
            sb.append("Content-Length: ").append(body.length).append("\r\n");
        }
        sb.append("\r\n");
        return HttpBytes.message(sb, body);
    }
}

package dev.goodput.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Takes a stream's bytes as they arrive and hands on whole events, all but the usage-only one
 * (no choices, a {@code usage} object) the proxy asked for on a client's behalf. Events end at a
 * blank line (LF LF or CRLF CRLF); bytes of an unfinished event wait for the rest.
 */
final class UsageStripper {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

    /** Takes bytes; returns the complete events among what has come so far, the usage-only one left out. */
    byte[] feed(byte[] bytes) {
        pending.writeBytes(bytes);
        final byte[] all = pending.toByteArray();
        final ByteArrayOutputStream out = new ByteArrayOutputStream(all.length);
        int start = 0;
        int end;
        while ((end = eventEnd(all, start)) >= 0) {
            if (!usageOnly(all, start, end)) {
                out.write(all, start, end - start);
            }
            start = end;
        }
        pending.reset();
        pending.write(all, start, all.length - start);
        return out.toByteArray();
    }

    /** What is left when the stream ends (an event without its closing blank line), handed on as it is. */
    byte[] rest() {
        final byte[] r = pending.toByteArray();
        pending.reset();
        return r;
    }

    /** The index just past the blank line that ends the event starting at {@code from}, or -1. */
    static int eventEnd(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) {
            if (b[i] == '\n' && b[i + 1] == '\n') {
                return i + 2;
            }
            if (b[i] == '\r' && i + 3 < b.length && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                return i + 4;
            }
        }
        return -1;
    }

    /** Whether the event is {@code data: {...}} with a usage object and no choice. */
    static boolean usageOnly(byte[] b, int start, int end) {
        final String event = new String(b, start, end - start, StandardCharsets.UTF_8).strip();
        if (!event.startsWith("data:") || event.indexOf('\n') >= 0) {
            return false;
        }
        final String data = event.substring(5).strip();
        if (!data.startsWith("{")) {
            return false;
        }
        try {
            final JsonNode n = JSON.readTree(data);
            return n.path("usage").isObject() && (!n.has("choices") || n.path("choices").isEmpty());
        } catch (IOException e) {
            return false;
        }
    }
}

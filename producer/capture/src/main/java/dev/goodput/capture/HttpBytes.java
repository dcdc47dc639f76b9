package dev.goodput.capture;

import java.nio.charset.StandardCharsets;

/** An HTTP/1.1 message as bytes, shared by the clients and the proxy that write them by hand. */
public final class HttpBytes {
    private HttpBytes() {
    }

    /** The head (start line and header lines, ending with its blank line; ISO-8859-1 as RFC 9112 says) then the body. */
    public static byte[] message(CharSequence head, byte[] body) {
        final byte[] h = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        final byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }
}

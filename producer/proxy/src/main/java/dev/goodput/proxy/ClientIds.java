package dev.goodput.proxy;

/**
 * What a client names its call with, in headers: its request id ({@code X-Request-Id}) and the
 * session (conversation) the call is a turn of ({@code X-Session-Id}); either may be null.
 */
record ClientIds(String requestId, String sessionId) {

    /** The header a client names a call's session with. */
    static final String SESSION_HEADER = "X-Session-Id";

    /** An id as a client sent it in a header, if it is usable as one: printable ASCII, up to 128 characters; else null. */
    static String usable(String header) {
        return header == null || header.isEmpty() || header.length() > 128 || !header.chars().allMatch(c -> c > 32 && c < 127)
                ? null : header;
    }
}

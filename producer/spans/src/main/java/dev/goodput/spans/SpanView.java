package dev.goodput.spans;

import java.util.Map;

/**
 * One span as the mapping reads it, free of the wire format: its ids, times (Unix nanoseconds),
 * status and attributes (strings, longs, doubles, booleans), with its resource's attributes.
 *
 * @param error whether the span's status is ERROR
 */
public record SpanView(String traceId, String spanId, String name, long startNs, long endNs, boolean error,
                       String statusMessage, Map<String, Object> attributes, Map<String, Object> resource) {

    /** A number attribute as a double (an int or a double on the wire), or null when absent or not a number. */
    public Double number(String key) {
        final Object v = attributes.get(key);
        return v instanceof Number n ? n.doubleValue() : null;
    }

    /** A whole-number attribute (an int, or a double with no fraction), or null when absent or not one. */
    public Long whole(String key) {
        final Object v = attributes.get(key);
        if (v instanceof Long l) {
            return l;
        }
        if (v instanceof Double d && d == Math.rint(d) && Math.abs(d) < 1e15) {
            return d.longValue();
        }
        return null;
    }

    /** A string attribute, or null. */
    public String string(String key) {
        final Object v = attributes.get(key);
        return v instanceof String s ? s : null;
    }

    /** Whether any attribute's name starts with {@code prefix}. */
    public boolean hasPrefix(String prefix) {
        return attributes.keySet().stream().anyMatch(k -> k.startsWith(prefix));
    }
}

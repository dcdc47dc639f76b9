package dev.goodput.bytes;

import java.nio.ByteBuffer;

/**
 * The byte layout of one of this project's own values: a state store's value or an internal topic's
 * record, never a contract topic (those are Avro, in the registry). Every layout is written with
 * {@link Varint} over a {@link ByteSink} and read back by the same codec, beside the type it encodes.
 * A field added later goes at the end, so a value an older build wrote still reads.
 */
public interface StateCodec<V> {

    byte[] encode(V value);

    V decode(byte[] bytes);

    /**
     * Reads a layout's leading format number and refuses a value of another layout by name, rather
     * than misreading it (a value written by a build whose layout differed).
     */
    static ByteBuffer expectFormat(byte[] bytes, int format, String what) {
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        final long found = in.hasRemaining() ? Varint.readLong(in) : -1;
        if (found != format) {
            throw new IllegalStateException(what + " is in layout " + found + ", this build reads layout " + format
                    + ": it was written by another build; start this application with a new application id or reset it"
                    + " (kafka-streams-application-reset.sh)");
        }
        return in;
    }
}

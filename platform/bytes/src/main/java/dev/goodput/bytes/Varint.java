package dev.goodput.bytes;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The primitives of every {@link StateCodec}: zig-zag varints, strings (null kept) and byte strings. */
public final class Varint {
    private Varint() {
    }

    public static void writeLong(ByteSink out, long v) {
        out.writeUnsignedVarint((v << 1) ^ (v >> 63));
    }

    /**
     * A zig-zag varint of at most ten bytes (Avro's long, byte for byte); a longer one is refused
     * with {@link IllegalArgumentException}, as Avro's reader refuses it.
     */
    public static long readLong(ByteBuffer in) {
        byte b = in.get();
        if (b >= 0) {
            return (b >>> 1) ^ -(b & 1); // one byte: most indices, counts and lengths
        }
        long z = b & 0x7F;
        int shift = 7;
        do {
            b = in.get();
            z |= (long) (b & 0x7F) << shift;
            shift += 7;
        } while (b < 0 && shift < 70);
        if (b < 0) {
            throw new IllegalArgumentException("varint longer than ten bytes");
        }
        return (z >>> 1) ^ -(z & 1);
    }

    public static void writeString(ByteSink out, String s) {
        if (s == null) {
            writeLong(out, -1);
            return;
        }
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeLong(out, b.length);
        out.writeBytes(b);
    }

    public static String readString(ByteBuffer in) {
        final int n = (int) readLong(in);
        if (n < 0) {
            return null;
        }
        final byte[] b = new byte[n];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    public static void writeDouble(ByteSink out, double d) {
        writeLong(out, Double.doubleToRawLongBits(d));
    }

    public static double readDouble(ByteBuffer in) {
        return Double.longBitsToDouble(readLong(in));
    }

    public static void writeBytes(ByteSink out, byte[] b) {
        writeLong(out, b.length);
        out.writeBytes(b);
    }

    public static byte[] readBytes(ByteBuffer in) {
        final byte[] b = new byte[(int) readLong(in)];
        in.get(b);
        return b;
    }
}

package dev.goodput.serde;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The primitives of every {@link StateCodec}: zig-zag varints, strings (null kept) and byte strings. */
public final class Varint {
    private Varint() {
    }

    public static void writeLong(ByteSink out, long v) {
        long z = (v << 1) ^ (v >> 63);
        while ((z & ~0x7FL) != 0) {
            out.write((int) ((z & 0x7F) | 0x80));
            z >>>= 7;
        }
        out.write((int) z);
    }

    public static long readLong(ByteBuffer in) {
        long z = 0;
        int shift = 0;
        while (true) {
            final byte b = in.get();
            z |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
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

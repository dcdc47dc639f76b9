package dev.goodput.bytes;

import java.util.Arrays;

/**
 * A growable byte buffer for {@link StateCodec}s. Unlike ByteArrayOutputStream it takes no
 * lock per byte: a request's sample is a few hundred single-byte varint writes.
 */
public final class ByteSink {
    private byte[] buf;
    private int size;

    public ByteSink(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    public void write(int b) {
        if (size == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        buf[size++] = (byte) b;
    }

    /**
     * Appends {@code z} as a base-128 varint, low group first ({@link Varint#writeLong} zig-zags it
     * first): room for the longest one is made once, not checked per byte, since a request's
     * chunks and gaps are written here a few hundred varints at a time.
     */
    void writeUnsignedVarint(long z) {
        if (size + 10 > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + 10));
        }
        final byte[] b = buf;
        int p = size;
        while ((z & ~0x7FL) != 0) {
            b[p++] = (byte) ((z & 0x7F) | 0x80);
            z >>>= 7;
        }
        b[p++] = (byte) z;
        size = p;
    }

    public void writeBytes(byte[] b) {
        if (size + b.length > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + b.length));
        }
        System.arraycopy(b, 0, buf, size, b.length);
        size += b.length;
    }

    /** Appends what {@code other} holds. */
    public void writeBytes(ByteSink other) {
        if (size + other.size > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + other.size));
        }
        System.arraycopy(other.buf, 0, buf, size, other.size);
        size += other.size;
    }

    public int size() {
        return size;
    }

    /** Drops what was appended after the first {@code newSize} bytes (a trailer written for one copy). */
    public void truncate(int newSize) {
        if (newSize < 0 || newSize > size) {
            throw new IllegalArgumentException("cannot truncate " + size + " bytes to " + newSize);
        }
        size = newSize;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }
}

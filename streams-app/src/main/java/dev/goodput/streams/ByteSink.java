package dev.goodput.streams;

import java.util.Arrays;

/**
 * A growable byte buffer for the topology's own encodings. Unlike ByteArrayOutputStream it takes no
 * lock per byte: a request's sample is a few hundred single-byte varint writes.
 */
final class ByteSink {
    private byte[] buf;
    private int size;

    ByteSink(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    void write(int b) {
        if (size == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        buf[size++] = (byte) b;
    }

    void writeBytes(byte[] b) {
        if (size + b.length > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + b.length));
        }
        System.arraycopy(b, 0, buf, size, b.length);
        size += b.length;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }
}

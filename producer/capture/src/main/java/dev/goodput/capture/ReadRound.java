package dev.goodput.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One select round's reads, in order: every ready connection is read and timed first, into one
 * buffer, then the bytes are parsed, so a chunk's time does not include parsing the chunks read
 * before it. Selector thread only.
 */
final class ReadRound {
    private static final int READ_BUFFER = 256 * 1024;
    /** A read with less room than this left in the buffer parses the round first. */
    static final int MIN_READ_SPACE = 16 * 1024;

    final ByteBuffer buffer = ByteBuffer.allocateDirect(READ_BUFFER);
    private NioConnection[] conns = new NioConnection[256];
    private int[] start = new int[256];
    private int[] length = new int[256];
    private long[] nanos = new long[256];
    private int size;

    /** A read of {@code n} bytes at {@code at} of the buffer (or end of stream, n < 0), made at {@code readNanos}. */
    void add(NioConnection c, int at, int n, long readNanos) {
        if (size == conns.length) {
            final int grown = size * 2;
            conns = Arrays.copyOf(conns, grown);
            start = Arrays.copyOf(start, grown);
            length = Arrays.copyOf(length, grown);
            nanos = Arrays.copyOf(nanos, grown);
        }
        conns[size] = c;
        start[size] = at;
        length[size] = n;
        nanos[size] = readNanos;
        size++;
    }

    /** Parses the reads so far, in the order they were made, and empties the buffer. */
    void parse() {
        for (int i = 0; i < size; i++) {
            final NioConnection c = conns[i];
            conns[i] = null;
            try {
                c.consume(start[i], length[i], nanos[i]);
            } catch (IOException e) {
                c.broken(e);
            }
        }
        size = 0;
        buffer.clear();
    }
}

package dev.goodput.streams.fast;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * The frame in which {@link CoalescingConsumer} hands a run of consecutive token records of one
 * partition to the topology as one record. Each event keeps its own offset, timestamp, key and
 * value bytes, so the assembler sees exactly what the single records held.
 *
 * <p>Layout, big-endian fixed width so that writing it is mostly array copies: int count, then per
 * event: int offset - first offset, long timestamp, int key length (-1: null), int value length
 * (-1: null), key bytes, value bytes.
 */
public final class TokenBatch {

    /** Marks a record as a batch; records from producers never carry it. */
    public static final String HEADER = "goodput.token-batch";
    public static final byte[] HEADER_VALUE = "1".getBytes(StandardCharsets.US_ASCII);
    private static final int EVENT_HEADER = 4 + 8 + 4 + 4;

    private TokenBatch() {
    }

    public static boolean isBatch(Headers headers) {
        return headers.lastHeader(HEADER) != null;
    }

    /**
     * Encodes {@code records} (one partition, in offset order, at least one, within 2^31 offsets of
     * the first), whose keys and values are each a {@code byte[]}, a {@link ByteBuffer} (read from
     * its position to its limit, not moved) or null.
     */
    public static byte[] encode(List<? extends ConsumerRecord<?, ?>> records) {
        final int n = records.size();
        int size = 4;
        for (int i = 0; i < n; i++) {
            final ConsumerRecord<?, ?> r = records.get(i);
            size += EVENT_HEADER + Math.max(length(r.key()), 0) + Math.max(length(r.value()), 0);
        }
        final byte[] out = new byte[size];
        final long offset0 = records.get(0).offset();
        INT.set(out, 0, n);
        int pos = 4;
        for (int i = 0; i < n; i++) {
            final ConsumerRecord<?, ?> r = records.get(i);
            INT.set(out, pos, Math.toIntExact(r.offset() - offset0));
            LONG.set(out, pos + 4, r.timestamp());
            INT.set(out, pos + 12, length(r.key()));
            INT.set(out, pos + 16, length(r.value()));
            pos += EVENT_HEADER;
            pos = copy(r.key(), out, pos);
            pos = copy(r.value(), out, pos);
        }
        return out;
    }

    /** The byte length of a key or value, -1 for null. */
    private static int length(Object bytes) {
        if (bytes == null) {
            return -1;
        }
        return bytes instanceof byte[] ? ((byte[]) bytes).length : ((ByteBuffer) bytes).remaining();
    }

    private static int copy(Object bytes, byte[] out, int pos) {
        if (bytes == null) {
            return pos;
        }
        if (bytes instanceof byte[]) {
            final byte[] b = (byte[]) bytes;
            System.arraycopy(b, 0, out, pos, b.length);
            return pos + b.length;
        }
        final ByteBuffer b = (ByteBuffer) bytes;
        final int n = b.remaining();
        b.get(b.position(), out, pos, n);
        return pos + n;
    }

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /**
     * Iterates the events of a batch whose first event has {@code offset0}. An event's value is
     * left in the frame ({@link #frame}, {@link #valueOffset}, {@link #valueLength}) so the common
     * path reads it in place; {@link #value()} copies it out.
     */
    public static final class Reader {
        public final byte[] frame;
        private final ByteBuffer in;
        private final long offset0;
        private int remaining;
        public long offset;
        public long timestamp;
        public String key;
        public int valueOffset;
        /** -1 for a null value. */
        public int valueLength;

        public Reader(byte[] frame, long offset0) {
            this.frame = frame;
            this.in = ByteBuffer.wrap(frame);
            this.offset0 = offset0;
            try {
                this.remaining = in.getInt();
            } catch (BufferUnderflowException e) {
                throw new IllegalArgumentException("truncated batch frame", e);
            }
            if (remaining < 0) {
                throw new IllegalArgumentException("negative event count " + remaining);
            }
        }

        /**
         * Moves to the next event; false at the end.
         *
         * @throws IllegalArgumentException if the frame is malformed
         */
        public boolean next() {
            if (remaining == 0) {
                if (in.hasRemaining()) {
                    throw new IllegalArgumentException(in.remaining() + " bytes after the last event");
                }
                return false;
            }
            try {
                offset = offset0 + in.getInt();
                timestamp = in.getLong();
                final int keyLength = in.getInt();
                valueLength = in.getInt();
                if (keyLength < -1 || valueLength < -1
                        || Math.max(keyLength, 0) + (long) Math.max(valueLength, 0) > in.remaining()) {
                    throw new IllegalArgumentException("truncated batch frame: lengths " + keyLength + ", " + valueLength
                            + " with " + in.remaining() + " bytes left");
                }
                key = keyLength < 0 ? null : new String(frame, in.position(), keyLength, StandardCharsets.UTF_8);
                valueOffset = in.position() + Math.max(keyLength, 0);
                in.position(valueOffset + Math.max(valueLength, 0));
            } catch (BufferUnderflowException e) {
                throw new IllegalArgumentException("truncated batch frame", e);
            }
            remaining--;
            return true;
        }

        /** A copy of the current event's value (null if it had none). */
        public byte[] value() {
            return valueLength < 0 ? null : Arrays.copyOfRange(frame, valueOffset, valueOffset + valueLength);
        }
    }
}

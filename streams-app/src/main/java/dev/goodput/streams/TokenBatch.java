package dev.goodput.streams;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The frame in which {@link CoalescingConsumer} hands a run of consecutive token records of one
 * partition to the topology as one record. Each event keeps its own offset, timestamp, key and
 * value bytes, so the assembler sees exactly what the single records held.
 *
 * <p>Layout: zig-zag varint count, then per event: offset - first offset, timestamp - first
 * timestamp, key length (-1: null) and key bytes, value length (-1: null) and value bytes.
 */
final class TokenBatch {

    /** Marks a record as a batch; records from producers never carry it. */
    static final String HEADER = "goodput.token-batch";
    static final byte[] HEADER_VALUE = "1".getBytes(StandardCharsets.US_ASCII);

    private TokenBatch() {
    }

    static boolean isBatch(Headers headers) {
        final Header h = headers.lastHeader(HEADER);
        return h != null;
    }

    /** Encodes {@code records} (one partition, in offset order, at least one) relative to the first. */
    static byte[] encode(List<ConsumerRecord<byte[], byte[]>> records) {
        int size = 5;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            size += 24 + (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
        }
        final ByteSink out = new ByteSink(size);
        final long offset0 = records.get(0).offset();
        final long ts0 = records.get(0).timestamp();
        Varint.writeLong(out, records.size());
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Varint.writeLong(out, r.offset() - offset0);
            Varint.writeLong(out, r.timestamp() - ts0);
            writeNullable(out, r.key());
            writeNullable(out, r.value());
        }
        return out.toByteArray();
    }

    private static void writeNullable(ByteSink out, byte[] b) {
        if (b == null) {
            Varint.writeLong(out, -1);
        } else {
            Varint.writeBytes(out, b);
        }
    }

    /** Iterates the events of a batch whose first event has {@code offset0} and {@code ts0}. */
    static final class Reader {
        private final ByteBuffer in;
        private final long offset0;
        private final long ts0;
        private int remaining;
        long offset;
        long timestamp;
        String key;
        byte[] value;

        Reader(byte[] frame, long offset0, long ts0) {
            this.in = ByteBuffer.wrap(frame);
            this.offset0 = offset0;
            this.ts0 = ts0;
            this.remaining = (int) Varint.readLong(in);
            if (remaining < 0) {
                throw new IllegalArgumentException("negative event count " + remaining);
            }
        }

        /**
         * Moves to the next event; false at the end.
         *
         * @throws IllegalArgumentException if the frame is malformed
         */
        boolean next() {
            if (remaining == 0) {
                if (in.hasRemaining()) {
                    throw new IllegalArgumentException(in.remaining() + " bytes after the last event");
                }
                return false;
            }
            try {
                offset = offset0 + Varint.readLong(in);
                timestamp = ts0 + Varint.readLong(in);
                final byte[] k = readNullable();
                key = k == null ? null : new String(k, StandardCharsets.UTF_8);
                value = readNullable();
            } catch (java.nio.BufferUnderflowException | NegativeArraySizeException e) {
                throw new IllegalArgumentException("truncated batch frame", e);
            }
            remaining--;
            return true;
        }

        private byte[] readNullable() {
            final int n = (int) Varint.readLong(in);
            if (n < -1) {
                throw new IllegalArgumentException("negative length " + n);
            }
            if (n == -1) {
                return null;
            }
            final byte[] b = new byte[n];
            in.get(b);
            return b;
        }
    }
}

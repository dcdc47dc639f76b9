package dev.goodput.topics;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * Records for the dead-letter topic: the original key and value bytes, untouched, plus headers that
 * say where they came from and why they were refused. Nothing refused is lost.
 */
public final class DeadLetters {
    public static final String REASON = "goodput.dlq.reason";
    public static final String MESSAGE = "goodput.dlq.message";
    public static final String SOURCE_TOPIC = "goodput.dlq.source.topic";
    public static final String SOURCE_PARTITION = "goodput.dlq.source.partition";
    public static final String SOURCE_OFFSET = "goodput.dlq.source.offset";
    public static final String STAGE = "goodput.dlq.stage";
    /** The run a refusal belongs to, where the refusing stage knows it (the span receiver): its report counts it. */
    public static final String RUN_ID = "goodput.dlq.run.id";
    /** Set when the value was cut to {@link #MAX_VALUE_BYTES}: the original length in bytes. */
    public static final String TRUNCATED_FROM = "goodput.dlq.truncated.from.bytes";
    /**
     * The most of a refused value the DLQ keeps: well under the broker's default 1 MB record limit, so
     * a refused record can always be written (a 5 MB value that compressed under the limit on its
     * own topic could not be, and stopped the app).
     */
    public static final int MAX_VALUE_BYTES = 256 * 1024;

    private DeadLetters() {
    }

    /** Headers describing a refused record. */
    public static Headers headers(String stage, String reason, String message, String sourceTopic, int partition,
                                  long offset) {
        final Headers h = new HeaderList();
        h.add(REASON, utf8(reason));
        h.add(MESSAGE, utf8(message == null ? "" : message));
        h.add(SOURCE_TOPIC, utf8(sourceTopic));
        h.add(SOURCE_PARTITION, utf8(Integer.toString(partition)));
        h.add(SOURCE_OFFSET, utf8(Long.toString(offset)));
        h.add(STAGE, utf8(stage));
        return h;
    }

    /** A DLQ record carrying the original bytes. */
    public static ProducerRecord<byte[], byte[]> record(String dlqTopic, String stage, String reason, String message,
                                                        String sourceTopic, int partition, long offset,
                                                        byte[] key, byte[] value) {
        final Headers h = headers(stage, reason, message, sourceTopic, partition, offset);
        return new ProducerRecord<>(dlqTopic, null, null, key == null || key.length <= MAX_VALUE_BYTES ? key
                : Arrays.copyOf(key, MAX_VALUE_BYTES), bounded(value, h), h);
    }

    /**
     * The value as the DLQ keeps it: whole when it fits, else its first {@link #MAX_VALUE_BYTES}
     * bytes, with a {@link #TRUNCATED_FROM} header added to {@code headers} saying so.
     */
    public static byte[] bounded(byte[] value, Headers headers) {
        if (value == null || value.length <= MAX_VALUE_BYTES) {
            return value;
        }
        headers.add(TRUNCATED_FROM, utf8(Integer.toString(value.length)));
        return Arrays.copyOf(value, MAX_VALUE_BYTES);
    }

    /** The text of a header, or null. */
    public static String header(Headers headers, String name) {
        final var h = headers.lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

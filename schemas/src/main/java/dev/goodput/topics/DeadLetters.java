package dev.goodput.topics;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

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

    private DeadLetters() {
    }

    /** Headers describing a refused record. */
    public static Headers headers(String stage, String reason, String message, String sourceTopic, int partition,
                                  long offset) {
        final RecordHeaders h = new RecordHeaders();
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
        return new ProducerRecord<>(dlqTopic, null, null, key, value,
                headers(stage, reason, message, sourceTopic, partition, offset));
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

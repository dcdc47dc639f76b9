package dev.goodput.spans;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.LongAdder;

import dev.goodput.config.ClientConfig;
import dev.goodput.topics.DeadLetters;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Refused GenAI spans to the DLQ: the span's own protobuf bytes (an OTLP {@code Span}), keyed by its
 * trace and span id, with the reason and message headers every refusal carries, so a refused span
 * is never lost and the report counts it by reason.
 */
final class RefusedSpans implements AutoCloseable {
    static final String STAGE = "span-ingest";
    static final String SOURCE = "otlp:/v1/traces";

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final LongAdder failed = new LongAdder();
    private final String runId;

    RefusedSpans(Properties clientProps, String dlqTopic, String runId) {
        this.topic = dlqTopic;
        this.runId = runId;
        this.producer = new KafkaProducer<>(ClientConfig.forProducer(clientProps), new ByteArraySerializer(), new ByteArraySerializer());
    }

    void send(SpanView span, byte[] wire, String reason, String message) {
        final var record = DeadLetters.record(topic, STAGE, reason, message, SOURCE, -1, -1,
                (span.traceId() + "-" + span.spanId()).getBytes(StandardCharsets.UTF_8), wire);
        record.headers().add(DeadLetters.RUN_ID, runId.getBytes(StandardCharsets.UTF_8));
        producer.send(record, (md, e) -> {
                    if (e != null) {
                        failed.increment();
                    }
                });
    }

    /** Refusals that could not be written to the DLQ. */
    long failed() {
        return failed.sum();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(30));
    }
}

package dev.goodput.failure;

import java.util.List;
import java.util.Map;

import dev.goodput.topics.DeadLetters;
import dev.goodput.topics.Topics;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Streams' processing exception handler (KIP-1033) for the streams-app: an error that one
 * record causes in a processor sends that record's original bytes to the DLQ, with reason
 * {@value #REASON} and the exception, and processing goes on. Without it the default handler fails
 * the thread, the replacement thread reads the same record and fails again, forever.
 * Errors that are not one record's (the broker, a store, fencing) never reach this handler.
 */
public final class DeadLetterHandler implements ProcessingExceptionHandler {

    /** The streams property naming the DLQ topic this handler writes to. */
    public static final String DLQ_TOPIC_CONFIG = "goodput.dlq.topic";
    public static final String REASON = "processing_error";
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterHandler.class);

    private String dlqTopic = Topics.DLQ.name();

    /** The Kafka Streams properties that install this handler, writing to {@code dlqTopic}. */
    public static Map<String, String> properties(String dlqTopic) {
        return Map.of(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
                DeadLetterHandler.class.getName(), DLQ_TOPIC_CONFIG, dlqTopic,
                // no global stores in Goodput's apps; said so that Kafka Streams does not warn at every start
                "processing.exception.handler.global.enabled", "true");
    }

    @Override
    public void configure(Map<String, ?> configs) {
        final Object t = configs.get(DLQ_TOPIC_CONFIG);
        if (t != null) {
            dlqTopic = t.toString();
        }
    }

    @Override
    public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        LOG.warn("refused a record of {}-{} at offset {} to {}: {}", context.topic(), context.partition(), context.offset(),
                dlqTopic, describe(exception));
        return Response.resume(List.of(DeadLetters.record(dlqTopic, "streams-app", REASON, describe(exception),
                context.topic(), context.partition(), context.offset(), context.sourceRawKey(), context.sourceRawValue())));
    }

    /** The exception's class and message, one line. */
    public static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}

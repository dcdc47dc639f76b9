package dev.goodput.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A record's bytes are not a readable Confluent wire-format Avro record. Carries the topic and, once
 * the caller knows them, the partition and offset, so the record can be sent to the DLQ with the
 * reason and found again.
 */
public final class WireFormatException extends SerializationException {
    private static final long serialVersionUID = 1L;

    /** Why the bytes could not be read. */
    public enum Reason {
        /** First byte is not 0. */
        BAD_MAGIC,
        /** Fewer than the 5 header bytes, or the Avro body ended early. */
        TRUNCATED,
        /** The 4-byte schema id is not known to the registry. */
        UNKNOWN_SCHEMA_ID,
        /** The writer schema cannot be resolved against this reader's schema. */
        INCOMPATIBLE_SCHEMA,
        /** The Avro body is corrupt (bad varint, bad union branch, trailing bytes). */
        UNREADABLE
    }

    private final Reason reason;
    private final String topic;
    private final int partition;
    private final long offset;

    public WireFormatException(Reason reason, String topic, String message, Throwable cause) {
        this(reason, topic, -1, -1L, message, cause);
    }

    private WireFormatException(Reason reason, String topic, int partition, long offset, String message,
                                Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
    }

    /** The same error, located at a partition and offset (known to consumers, not to deserializers). */
    public WireFormatException at(int atPartition, long atOffset) {
        return new WireFormatException(reason, topic, atPartition, atOffset, getMessage(), getCause());
    }

    public Reason reason() {
        return reason;
    }

    public String topic() {
        return topic;
    }

    /** -1 when not known. */
    public int partition() {
        return partition;
    }

    /** -1 when not known. */
    public long offset() {
        return offset;
    }

    @Override
    public String toString() {
        return "WireFormatException{" + reason + " at " + topic + "-" + partition + "@" + offset + ": " + getMessage() + "}";
    }
}

package dev.goodput.streams.fast;

import java.nio.ByteBuffer;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.utils.Utils;

/**
 * The main consumer's key and value deserializer: on the tokens topic the bytes as the fetch left
 * them (a {@link ByteBuffer} over the fetched response, as Kafka's {@code ByteBufferDeserializer}
 * returns it), on every other topic a {@code byte[]} as Kafka Streams expects.
 */
final class TokenBuffers implements Deserializer<Object> {

    private final String tokensTopic;

    TokenBuffers(String tokensTopic) {
        this.tokensTopic = tokensTopic;
    }

    @Override
    public Object deserialize(String topic, byte[] data) {
        return data;
    }

    @Override
    public Object deserialize(String topic, Headers headers, byte[] data) {
        return data;
    }

    @Override
    public Object deserialize(String topic, Headers headers, ByteBuffer data) {
        return topic.equals(tokensTopic) ? data : Utils.toNullableArray(data);
    }

    /** {@code r} with its key and value as {@code byte[]} (itself when they already are). */
    @SuppressWarnings("unchecked")
    static ConsumerRecord<byte[], byte[]> asBytes(ConsumerRecord<?, ?> r) {
        if (!(r.key() instanceof ByteBuffer) && !(r.value() instanceof ByteBuffer)) {
            return (ConsumerRecord<byte[], byte[]>) r;
        }
        return new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(), r.timestampType(),
                r.serializedKeySize(), r.serializedValueSize(), bytes(r.key()), bytes(r.value()), r.headers(),
                r.leaderEpoch());
    }

    private static byte[] bytes(Object o) {
        return o instanceof ByteBuffer ? Utils.toArray(((ByteBuffer) o).duplicate()) : (byte[]) o;
    }
}

package dev.goodput.streams.fast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class TokenBatchTest {

    static ConsumerRecord<byte[], byte[]> rec(String topic, long offset, long ts, String key, byte[] value) {
        return new ConsumerRecord<>(topic, 2, offset, ts, TimestampType.CREATE_TIME, -1, -1,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8), value, new RecordHeaders(), Optional.of(7));
    }

    @Test
    void eventsComeBackWithTheirOwnOffsetsTimestampsKeysAndValues() {
        final List<ConsumerRecord<byte[], byte[]>> in = List.of(
                rec("t", 100, 5_000, "r1", new byte[] {1, 2, 3}),
                rec("t", 101, 4_990, null, null),
                rec("t", 105, 6_000, "r\u00e9", new byte[0]));
        final TokenBatch.Reader r = new TokenBatch.Reader(TokenBatch.encode(in), 100);
        for (ConsumerRecord<byte[], byte[]> e : in) {
            assertThat(r.next()).isTrue();
            assertThat(r.offset).isEqualTo(e.offset());
            assertThat(r.timestamp).isEqualTo(e.timestamp());
            assertThat(r.key).isEqualTo(e.key() == null ? null : new String(e.key(), StandardCharsets.UTF_8));
            assertThat(r.value()).isEqualTo(e.value());
        }
        assertThat(r.next()).isFalse();
    }

    @Test
    void bufferSlicesOfTheFetchEncodeAsTheirBytesAloneAndStayUnmoved() {
        // as the fetch hands them: slices at an offset inside one larger response buffer
        final ByteBuffer response = ByteBuffer.wrap(new byte[] {9, 9, 'r', '1', 1, 2, 3, 9, 9});
        final ByteBuffer key = response.duplicate().position(2).limit(4).slice();
        final ByteBuffer value = response.duplicate().position(4).limit(7).slice();
        final ConsumerRecord<ByteBuffer, ByteBuffer> buffered = new ConsumerRecord<>("t", 2, 100, 5_000,
                TimestampType.CREATE_TIME, -1, -1, key, value, new RecordHeaders(), Optional.empty());
        final byte[] fromBuffers = TokenBatch.encode(List.of(buffered, rec("t", 101, 5_001, null, null)));
        final byte[] fromArrays = TokenBatch.encode(List.of(rec("t", 100, 5_000, "r1", new byte[] {1, 2, 3}),
                rec("t", 101, 5_001, null, null)));
        assertThat(fromBuffers).isEqualTo(fromArrays);
        assertThat(key.remaining()).isEqualTo(2);
        assertThat(value.remaining()).isEqualTo(3);
        final ConsumerRecord<byte[], byte[]> alone = TokenBuffers.asBytes(buffered);
        assertThat(alone.key()).containsExactly('r', '1');
        assertThat(alone.value()).containsExactly(1, 2, 3);
        assertThat(alone.offset()).isEqualTo(100);
    }

    @Test
    void onlyTheTokensTopicIsLeftInTheFetchedBuffer() {
        final TokenBuffers d = new TokenBuffers("llm.tokens");
        final ByteBuffer bytes = ByteBuffer.wrap(new byte[] {1, 2});
        assertThat(d.deserialize("llm.tokens", new RecordHeaders(), bytes)).isSameAs(bytes);
        assertThat(d.deserialize("llm.requests", new RecordHeaders(), bytes)).isEqualTo(new byte[] {1, 2});
        assertThat(d.deserialize("llm.requests", new RecordHeaders(), (ByteBuffer) null)).isNull();
    }

    @Test
    void truncatedOrPaddedFramesAreRefused() {
        final byte[] frame = TokenBatch.encode(List.of(rec("t", 0, 1, "k", new byte[] {1, 2, 3, 4})));
        final TokenBatch.Reader cut = new TokenBatch.Reader(Arrays.copyOf(frame, frame.length - 2), 0);
        assertThatThrownBy(cut::next).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
        final TokenBatch.Reader padded = new TokenBatch.Reader(Arrays.copyOf(frame, frame.length + 1), 0);
        assertThat(padded.next()).isTrue();
        assertThatThrownBy(padded::next).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("after the last");
    }
}

package dev.goodput.streams.fast;

import static dev.goodput.streams.fast.TokenBatchTest.rec;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class CoalescingConsumerTest {

    private static List<Long> eventOffsets(ConsumerRecord<byte[], byte[]> r) {
        final List<Long> out = new ArrayList<>();
        if (!TokenBatch.isBatch(r.headers())) {
            out.add(r.offset());
            return out;
        }
        final TokenBatch.Reader b = new TokenBatch.Reader(r.value(), r.offset());
        while (b.next()) {
            out.add(b.offset);
        }
        return out;
    }

    @Test
    void runsOfTokenRecordsBecomeBatchesAtTheirFirstOffsetAndHeaderedRecordsStayAlone() {
        final List<ConsumerRecord<byte[], byte[]>> in = new ArrayList<>();
        for (long o = 0; o < 200; o++) {
            final ConsumerRecord<byte[], byte[]> r = rec("llm.tokens", o, 1_000 + o, "k" + o, new byte[] {(byte) o});
            if (o == 70) {
                r.headers().add("trace", new byte[] {1});
            }
            in.add(r);
        }
        final List<ConsumerRecord<byte[], byte[]>> out = CoalescingConsumer.coalesce(in);
        // 0-63 | 64-69 | 70 alone | 71-134 | 135-198 | 199 alone (a run of one needs no frame)
        assertThat(out).extracting(ConsumerRecord::offset).containsExactly(0L, 64L, 70L, 71L, 135L, 199L);
        assertThat(out.get(2).headers().lastHeader("trace")).isNotNull();
        assertThat(TokenBatch.isBatch(out.get(2).headers())).isFalse();
        assertThat(TokenBatch.isBatch(out.get(5).headers())).isFalse();
        final List<Long> all = new ArrayList<>();
        out.forEach(r -> all.addAll(eventOffsets(r)));
        assertThat(all).hasSize(200).isSorted().doesNotHaveDuplicates();
        assertThat(out.get(0).timestamp()).isEqualTo(1_000);
        assertThat(out.get(0).leaderEpoch()).contains(7);
    }

    @Test
    void pollCoalescesOnlyTheTokenTopicAndKeepsTheNextOffsets() {
        final MockConsumer<byte[], byte[]> mock = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        final TopicPartition tokens = new TopicPartition("llm.tokens", 2);
        final TopicPartition requests = new TopicPartition("llm.requests", 2);
        mock.assign(List.of(tokens, requests));
        final Map<TopicPartition, Long> begin = new HashMap<>(Map.of(tokens, 0L, requests, 0L));
        mock.updateBeginningOffsets(begin);
        for (long o = 0; o < 10; o++) {
            mock.addRecord(rec("llm.tokens", o, 1_000 + o, "k", new byte[] {1}));
            mock.addRecord(rec("llm.requests", o, 1_000 + o, "k", new byte[] {2}));
        }
        try (CoalescingConsumer c = new CoalescingConsumer(mock, "llm.tokens")) {
            final var polled = c.poll(Duration.ZERO);
            assertThat(polled.records(tokens)).hasSize(1);
            assertThat(eventOffsets(polled.records(tokens).get(0))).hasSize(10);
            assertThat(polled.records(requests)).hasSize(10);
            assertThat(polled.nextOffsets().get(tokens).offset()).isEqualTo(10);
            assertThat(polled.nextOffsets().get(requests).offset()).isEqualTo(10);
        }
    }
}

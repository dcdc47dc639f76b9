package dev.goodput.streams.fast;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streams-app's main consumer: the real one, except that each poll hands runs of up to
 * {@link #MAX_BATCH} consecutive token records of one partition to Kafka Streams as one
 * {@link TokenBatch} record.
 *
 * <p>Why: Kafka Streams spends about 0.4 us of fixed cost on every record it routes (partition
 * group choice, record context, sensors), more than the assembler spends on a token event. Token
 * events are ~98 % of the input, so paying that cost once per batch instead of once per token is
 * what lets the app keep up with the raw read rate.
 *
 * <p>Why it keeps exactly-once and restore intact: a batch record carries the offset of its
 * <em>first</em> event. Kafka Streams commits, per partition, the offset of the first record still
 * queued or, with nothing queued, the consumer's next offset (which this class passes through
 * unchanged), so a commit never covers an event that was not processed, and a batch is processed
 * whole in one {@code process} call inside the task's transaction. Records with headers or without
 * a valid timestamp are passed on alone, so Kafka Streams treats them as it always does.
 *
 * <p>Why the real consumer reads token values as {@link ByteBuffer}s ({@link TokenBuffers}): a
 * {@code byte[]} would be one more copy and allocation of every event before it is copied into its
 * frame; those were a tenth of the stream thread's allocation.
 */
public final class CoalescingConsumer implements Consumer<byte[], byte[]> {

    /** Events per batch: enough to make the per-record cost negligible, small enough that a
     * partition's queue ({@link CoalescingClientSupplier#bufferedBatches()} batches) stays small. */
    public static final int MAX_BATCH = 64;

    private static final Logger LOG = LoggerFactory.getLogger(CoalescingConsumer.class);

    private final Consumer<Object, Object> delegate;
    private final String tokensTopic;
    private long tokenRecords;
    private long handedOn;

    /** {@code delegate}'s keys and values are {@code byte[]}, or {@link ByteBuffer} on the tokens topic. */
    @SuppressWarnings("unchecked")
    CoalescingConsumer(Consumer<?, ?> delegate, String tokensTopic) {
        this.delegate = (Consumer<Object, Object>) delegate;
        this.tokensTopic = tokensTopic;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        final ConsumerRecords<Object, Object> polled = delegate.poll(timeout);
        if (polled.isEmpty()) {
            return (ConsumerRecords) polled;
        }
        final Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> out = new HashMap<>();
        for (TopicPartition tp : polled.partitions()) {
            final List<ConsumerRecord<Object, Object>> records = polled.records(tp);
            if (tp.topic().equals(tokensTopic)) {
                final List<ConsumerRecord<byte[], byte[]>> batched = coalesce(records);
                tokenRecords += records.size();
                handedOn += batched.size();
                out.put(tp, batched);
            } else {
                out.put(tp, (List) records);
            }
        }
        return new ConsumerRecords<>(out, polled.nextOffsets());
    }

    static List<ConsumerRecord<byte[], byte[]>> coalesce(List<? extends ConsumerRecord<?, ?>> records) {
        final List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>(records.size() / MAX_BATCH + 2);
        final List<ConsumerRecord<?, ?>> run = new ArrayList<>(MAX_BATCH);
        for (ConsumerRecord<?, ?> r : records) {
            // toArray() of empty headers is a shared constant; an iterator is two objects per record
            if (r.headers().toArray().length != 0 || r.timestamp() < 0) {
                flush(run, out);
                out.add(TokenBuffers.asBytes(r));
                continue;
            }
            if (!run.isEmpty() && r.offset() - run.get(0).offset() > Integer.MAX_VALUE) {
                flush(run, out);
            }
            run.add(r);
            if (run.size() == MAX_BATCH) {
                flush(run, out);
            }
        }
        flush(run, out);
        return out;
    }

    private static void flush(List<ConsumerRecord<?, ?>> run, List<ConsumerRecord<byte[], byte[]>> out) {
        if (run.isEmpty()) {
            return;
        }
        if (run.size() == 1) {
            out.add(TokenBuffers.asBytes(run.get(0)));
        } else {
            final ConsumerRecord<?, ?> first = run.get(0);
            final byte[] frame = TokenBatch.encode(run);
            final RecordHeaders headers = new RecordHeaders();
            headers.add(TokenBatch.HEADER, TokenBatch.HEADER_VALUE);
            out.add(new ConsumerRecord<>(first.topic(), first.partition(), first.offset(), first.timestamp(),
                    first.timestampType(), -1, frame.length, null, frame, headers, first.leaderEpoch()));
        }
        run.clear();
    }

    private void logCounts() {
        LOG.info("main consumer closing: {} token records handed to Kafka Streams as {} records", tokenRecords, handedOn);
    }

    // Everything else is the real consumer's.

    @Override
    public Set<TopicPartition> assignment() {
        return delegate.assignment();
    }

    @Override
    public Set<String> subscription() {
        return delegate.subscription();
    }

    @Override
    public void subscribe(Collection<String> topics) {
        delegate.subscribe(topics);
    }

    @Override
    public void subscribe(Collection<String> topics, ConsumerRebalanceListener callback) {
        delegate.subscribe(topics, callback);
    }

    @Override
    public void assign(Collection<TopicPartition> partitions) {
        delegate.assign(partitions);
    }

    @Override
    public void subscribe(Pattern pattern, ConsumerRebalanceListener callback) {
        delegate.subscribe(pattern, callback);
    }

    @Override
    public void subscribe(Pattern pattern) {
        delegate.subscribe(pattern);
    }

    @Override
    public void subscribe(SubscriptionPattern pattern, ConsumerRebalanceListener callback) {
        delegate.subscribe(pattern, callback);
    }

    @Override
    public void subscribe(SubscriptionPattern pattern) {
        delegate.subscribe(pattern);
    }

    @Override
    public void unsubscribe() {
        delegate.unsubscribe();
    }

    @Override
    public void commitSync() {
        delegate.commitSync();
    }

    @Override
    public void commitSync(Duration timeout) {
        delegate.commitSync(timeout);
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        delegate.commitSync(offsets);
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        delegate.commitSync(offsets, timeout);
    }

    @Override
    public void commitAsync() {
        delegate.commitAsync();
    }

    @Override
    public void commitAsync(OffsetCommitCallback callback) {
        delegate.commitAsync(callback);
    }

    @Override
    public void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        delegate.commitAsync(offsets, callback);
    }

    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {
        delegate.registerMetricForSubscription(metric);
    }

    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {
        delegate.unregisterMetricFromSubscription(metric);
    }

    @Override
    public void seek(TopicPartition partition, long offset) {
        delegate.seek(partition, offset);
    }

    @Override
    public void seek(TopicPartition partition, OffsetAndMetadata offsetAndMetadata) {
        delegate.seek(partition, offsetAndMetadata);
    }

    @Override
    public void seekToBeginning(Collection<TopicPartition> partitions) {
        delegate.seekToBeginning(partitions);
    }

    @Override
    public void seekToEnd(Collection<TopicPartition> partitions) {
        delegate.seekToEnd(partitions);
    }

    @Override
    public long position(TopicPartition partition) {
        return delegate.position(partition);
    }

    @Override
    public long position(TopicPartition partition, Duration timeout) {
        return delegate.position(partition, timeout);
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
        return delegate.committed(partitions);
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions, Duration timeout) {
        return delegate.committed(partitions, timeout);
    }

    @Override
    public Uuid clientInstanceId(Duration timeout) {
        return delegate.clientInstanceId(timeout);
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return delegate.metrics();
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return delegate.partitionsFor(topic);
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
        return delegate.partitionsFor(topic, timeout);
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics() {
        return delegate.listTopics();
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics(Duration timeout) {
        return delegate.listTopics(timeout);
    }

    @Override
    public Set<TopicPartition> paused() {
        return delegate.paused();
    }

    @Override
    public void pause(Collection<TopicPartition> partitions) {
        delegate.pause(partitions);
    }

    @Override
    public void resume(Collection<TopicPartition> partitions) {
        delegate.resume(partitions);
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestampsToSearch) {
        return delegate.offsetsForTimes(timestampsToSearch);
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestampsToSearch,
                                                                   Duration timeout) {
        return delegate.offsetsForTimes(timestampsToSearch, timeout);
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
        return delegate.beginningOffsets(partitions);
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return delegate.beginningOffsets(partitions, timeout);
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return delegate.endOffsets(partitions);
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return delegate.endOffsets(partitions, timeout);
    }

    @Override
    public OptionalLong currentLag(TopicPartition topicPartition) {
        return delegate.currentLag(topicPartition);
    }

    @Override
    public ConsumerGroupMetadata groupMetadata() {
        return delegate.groupMetadata();
    }

    @Override
    public void enforceRebalance() {
        delegate.enforceRebalance();
    }

    @Override
    public void enforceRebalance(String reason) {
        delegate.enforceRebalance(reason);
    }

    @Override
    public void close() {
        logCounts();
        delegate.close();
    }

    @Override
    public void close(Duration timeout) {
        logCounts();
        delegate.close(timeout);
    }

    @Override
    public void close(CloseOptions option) {
        logCounts();
        delegate.close(option);
    }

    @Override
    public void wakeup() {
        delegate.wakeup();
    }
}

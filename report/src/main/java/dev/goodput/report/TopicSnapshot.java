package dev.goodput.report;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.ObjIntConsumer;
import java.util.stream.Collectors;

import dev.goodput.serde.WireFormatException;
import dev.goodput.topics.Control;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Everything a topic holds now: reads every partition from its beginning up to the end offsets
 * taken at the start (committed records only), with no consumer group. A report reads whole
 * topics this way so that it is exact, not "whatever arrived before a timeout".
 */
public final class TopicSnapshot {

    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration LIMIT = Duration.ofMinutes(10);

    private TopicSnapshot() {
    }

    /**
     * Records that could not be read back (an unknown schema id, bytes that are not the wire
     * format), counted by topic and reason: a report says what it skipped instead of failing whole
     * on one record the streams-app had already sent to the DLQ.
     */
    public static final class Skipped {
        private final Map<String, Long> counts = new TreeMap<>();

        synchronized void add(String topic, RuntimeException e) {
            final String reason = e instanceof WireFormatException w
                    ? w.reason().name().toLowerCase(Locale.ROOT) : e.getClass().getSimpleName();
            counts.merge(topic + " (" + reason + ")", 1L, Long::sum);
        }

        /** "topic (reason)" to how many, in name order; empty when nothing was skipped. */
        public synchronized Map<String, Long> counts() {
            return Map.copyOf(counts);
        }
    }

    /** The values of every record in {@code topic}, in partition then offset order; a missing topic reads as empty. */
    public static <V> List<V> read(Properties client, String topic, Deserializer<V> values) {
        return read(client, topic, values, null);
    }

    /** The same, a record that cannot be read counted in {@code skipped} and passed over (null: it fails the read). */
    public static <V> List<V> read(Properties client, String topic, Deserializer<V> values, Skipped skipped) {
        final Map<Integer, List<V>> byPartition = new TreeMap<>();
        forEach(client, topic, values, (v, partition) -> byPartition.computeIfAbsent(partition, k -> new ArrayList<>()).add(v),
                skipped);
        final List<V> out = new ArrayList<>();
        byPartition.values().forEach(out::addAll);
        return out;
    }

    /**
     * Hands every record's value to {@code each} as it is read, in offset order within a partition,
     * without keeping them: for topics too large to hold (a long run's token events).
     */
    public static <V> void forEach(Properties client, String topic, Deserializer<V> values,
                                   ObjIntConsumer<V> each) {
        forEach(client, topic, values, each, null);
    }

    /** The same, a record that cannot be read counted in {@code skipped} and passed over (null: it fails the read). */
    public static <V> void forEach(Properties client, String topic, Deserializer<V> values,
                                   ObjIntConsumer<V> each, Skipped skipped) {
        forEachStamped(client, topic, values, (v, partition, timestampMs) -> each.accept(v, partition), skipped);
    }

    /** A record's value with its partition and log time (the broker's append time on the raw topics). */
    public interface StampedConsumer<V> {
        void accept(V value, int partition, long timestampMs);
    }

    /** The same, each value with its record's log time: what the door checks set an event's own time against. */
    public static <V> void forEachStamped(Properties client, String topic, Deserializer<V> values,
                                          StampedConsumer<V> each, Skipped skipped) {
        final Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            final var info = c.listTopics(Duration.ofSeconds(30)).get(topic);
            if (info == null) {
                return;
            }
            final List<TopicPartition> parts = info.stream().map(i -> new TopicPartition(topic, i.partition()))
                    .sorted(Comparator.comparingInt(TopicPartition::partition)).collect(Collectors.toList());
            c.assign(parts);
            c.seekToBeginning(parts);
            final Map<TopicPartition, Long> ends = c.endOffsets(parts);
            final long deadline = System.nanoTime() + LIMIT.toNanos();
            while (!done(c, ends)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + topic + " did not reach its end offsets " + ends + " in " + LIMIT);
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(POLL)) {
                    if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
                        if (Control.is(r.headers())) {
                            continue; // a tick or an end-of-run marker: no event
                        }
                        final V v;
                        try {
                            v = values.deserialize(r.topic(), r.headers(), r.value());
                        } catch (RuntimeException e) {
                            if (skipped == null) {
                                throw e;
                            }
                            skipped.add(r.topic(), e);
                            continue;
                        }
                        if (v != null) {
                            each.accept(v, r.partition(), r.timestamp());
                        }
                    }
                }
            }
        }
    }

    private static boolean done(KafkaConsumer<?, ?> c, Map<TopicPartition, Long> ends) {
        for (var e : ends.entrySet()) {
            if (c.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}

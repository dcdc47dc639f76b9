package dev.goodput.streams.fast;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.streams.StreamsApp;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guard on what {@link CoalescingConsumer}'s exactly-once argument takes from Kafka Streams: a
 * frame record carries the offset of its first event, and the task commits the offset of the first
 * record still queued or, with nothing queued, the consumer's position, never "the last record
 * processed + 1". If a Kafka version changed that, a committed offset would land inside a frame
 * (events re-read after a restart, or, the other way round, skipped); this test then fails, and the
 * wrapper must not be used with that version until its argument is made again.
 */
@ExtendWith(KafkaBrokerExtension.class)
class CoalescedCommitIT {
    private static final String TOPIC = "commit-guard.tokens";
    private static final int EVENTS = 200;

    @Test
    void aFrameIsCommittedAtTheConsumersPositionNotItsFirstOffsetPlusOne(EmbeddedKafka kafka, @TempDir Path dir)
            throws Exception {
        try (Admin admin = kafka.admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
        }
        final Properties client = new Properties();
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        // one producer batch, so the app's first fetch holds every event and the frames are 64, 64, 64, 8
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(), "linger.ms", "1000", "batch.size", "1048576"), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < EVENTS; i++) {
                p.send(new ProducerRecord<>(TOPIC, ("r" + i).getBytes(), new byte[] {(byte) i}));
            }
        }
        // every frame's first offset and event count, as the processor saw them
        final List<long[]> frames = new ArrayList<>();
        final Topology t = new Topology();
        t.addSource("tokens", Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer(), TOPIC);
        t.addProcessor("frames", () -> new Processor<byte[], byte[], Void, Void>() {
            private org.apache.kafka.streams.processor.api.ProcessorContext<Void, Void> ctx;

            @Override
            public void init(org.apache.kafka.streams.processor.api.ProcessorContext<Void, Void> c) {
                ctx = c;
            }

            @Override
            public void process(Record<byte[], byte[]> r) {
                final long offset = ctx.recordMetadata().orElseThrow().offset();
                int n = 1;
                if (TokenBatch.isBatch(r.headers())) {
                    final TokenBatch.Reader events = new TokenBatch.Reader(r.value(), offset);
                    n = 0;
                    while (events.next()) {
                        n++;
                    }
                }
                synchronized (frames) {
                    frames.add(new long[] {offset, n});
                }
            }
        }, "tokens");
        final String app = "commit-guard";
        final KafkaStreams streams = new KafkaStreams(t, StreamsApp.streamsProperties(client, app, dir),
                new CoalescingClientSupplier(TOPIC));
        streams.start();
        final Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = awaitCommitted(kafka, app, new TopicPartition(TOPIC, 0), EVENTS);
        } finally {
            streams.close(Duration.ofSeconds(30));
        }
        synchronized (frames) {
            assertThat(frames.stream().mapToLong(f -> f[1]).sum()).as("every event, once").isEqualTo(EVENTS);
            final long[] last = frames.get(frames.size() - 1);
            assertThat(last[0] + 1).as("the test tells the two rules apart: the last frame holds more than one event")
                    .isLessThan(EVENTS);
        }
        assertThat(committed.get(new TopicPartition(TOPIC, 0)).offset())
                .as("committed at the consumer's position after the last frame").isEqualTo(EVENTS);
    }

    /**
     * The group's committed offsets once the partition's reaches {@code end}, or as they are after
     * 3 minutes (a build whose commit rule changed never gets there, and the assertion says so).
     */
    private static Map<TopicPartition, OffsetAndMetadata> awaitCommitted(EmbeddedKafka kafka, String group,
                                                                         TopicPartition tp, long end) throws Exception {
        final long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        try (Admin admin = kafka.admin()) {
            Map<TopicPartition, OffsetAndMetadata> now = Map.of();
            while (System.nanoTime() < deadline) {
                now = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
                if (now.containsKey(tp) && now.get(tp).offset() >= end) {
                    return now;
                }
                Thread.sleep(200);
            }
            return now;
        }
    }
}

package dev.goodput.sink;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import dev.goodput.config.ClientConfig;
import io.prometheus.metrics.core.metrics.Gauge;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far behind the streams-app and the sink are: for each consumer group, the records between its
 * committed offsets and the ends of the partitions it reads (internal repartition topics included),
 * every few seconds. A group that does not exist (yet) has no series.
 */
final class ConsumerLag implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerLag.class);

    private final Admin admin;
    private final List<String> groups;
    private final Gauge lag;
    private final Thread thread;
    private volatile boolean running = true;

    ConsumerLag(Properties client, List<String> groups, Gauge lag, Duration every) {
        this.admin = Admin.create(ClientConfig.forAdmin(client));
        this.groups = List.copyOf(groups);
        this.lag = lag;
        this.thread = new Thread(() -> {
            while (running) {
                for (String g : this.groups) {
                    try {
                        final Long n = lagOf(g);
                        if (n == null) {
                            lag.remove(g);
                        } else {
                            lag.labelValues(g).set(n);
                        }
                    } catch (Exception e) {
                        if (running) {
                            LOG.debug("lag of {} not read: {}", g, e.toString());
                        }
                    }
                }
                try {
                    Thread.sleep(every.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "goodput-consumer-lag");
        thread.setDaemon(true);
        thread.start();
    }

    /** The group's lag in records, or null when it has committed nothing. */
    Long lagOf(String group) throws Exception {
        final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        if (committed == null || committed.isEmpty()) {
            return null;
        }
        final Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        final var ends = admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
        long total = 0;
        for (var e : committed.entrySet()) {
            if (e.getValue() != null && ends.get(e.getKey()) != null) {
                total += Math.max(0, ends.get(e.getKey()).offset() - e.getValue().offset());
            }
        }
        return total;
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        admin.close(Duration.ofSeconds(5));
    }
}

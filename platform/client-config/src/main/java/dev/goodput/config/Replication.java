package dev.goodput.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the topics Goodput creates are replicated: as the cluster replicates them (its
 * {@code default.replication.factor}), or as the user says with {@code replication.factor} in the
 * client properties file, {@code GOODPUT_KAFKA_REPLICATION_FACTOR} or {@code --replication-factor}
 * (the key Kafka Streams reads for its own internal topics, so one setting covers every topic of a
 * run). Never a hard-coded 1: a topic of one replica on a cluster of three loses its partitions'
 * leaders with one broker, and an exactly-once transaction on such a partition can be left open (see
 * docs/operations.md). What a topic got is read back, and a topic below what the cluster can give is
 * said, created now or found.
 */
public final class Replication {
    /** The client property, as Kafka Streams names it. */
    public static final String KEY = "replication.factor";
    /** The replicas a topic that must not be lost wants, where the cluster has that many brokers. */
    public static final int SAFE = 3;

    private static final Logger LOG = LoggerFactory.getLogger(Replication.class);
    private static final long TIMEOUT_S = 30;

    private Replication() {
    }

    /**
     * The replication factor to create topics with: the client properties' {@value #KEY}, else -1
     * (the broker's default).
     *
     * @throws ConfigException for a value that is neither -1 nor a whole number from 1 to 32767
     */
    public static short factor(Properties client) {
        final String v = client.getProperty(KEY);
        if (v == null || v.isBlank()) {
            return -1;
        }
        try {
            final int n = Integer.parseInt(v.trim());
            if (n == -1 || (n >= 1 && n <= Short.MAX_VALUE)) {
                return (short) n;
            }
        } catch (NumberFormatException notANumber) {
            // said below
        }
        throw new ConfigException("client properties", KEY, List.of(KEY + "=" + v + " is not a replication factor: give a whole"
                + " number of replicas (3 on a cluster of 3 brokers or more), or -1 for the broker's default.replication.factor"));
    }

    /** One topic as the cluster holds it. */
    public record Held(String topic, int replicas, Integer minInsyncReplicas) {
    }

    /** What the topics got: their replicas (the fewest of any partition) and min.insync.replicas. */
    public static List<Held> describe(Admin admin, Collection<String> topics) throws InterruptedException, ExecutionException,
            TimeoutException {
        final Map<String, TopicDescription> d = admin.describeTopics(topics).allTopicNames().get(TIMEOUT_S, TimeUnit.SECONDS);
        final Map<ConfigResource, Config> configs = admin.describeConfigs(topics.stream()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList()).all().get(TIMEOUT_S, TimeUnit.SECONDS);
        final List<Held> out = new ArrayList<>();
        for (String t : topics) {
            final int replicas = d.get(t).partitions().stream().mapToInt(p -> p.replicas().size()).min().orElse(0);
            final var isr = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, t)).get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
            out.add(new Held(t, replicas, isr == null || isr.value() == null ? null : Integer.parseInt(isr.value())));
        }
        return out;
    }

    /** The brokers the cluster has now. */
    public static int brokers(Admin admin) throws InterruptedException, ExecutionException, TimeoutException {
        return admin.describeCluster().nodes().get(TIMEOUT_S, TimeUnit.SECONDS).size();
    }

    /**
     * What is wrong with the topics' replication on a cluster of {@code brokers}: a topic with fewer
     * replicas than the cluster can give up to {@value #SAFE}, or replicated with
     * {@code min.insync.replicas} of 1 (an acknowledged write then lives on one broker). Empty when
     * all is well; one line a topic, each with the fix.
     */
    public static List<String> problems(List<Held> held, int brokers) {
        final int want = Math.min(SAFE, brokers);
        final List<String> out = new ArrayList<>();
        for (Held h : held) {
            if (h.replicas() < want) {
                out.add(String.format(Locale.ROOT, "topic %s has %d replica(s) on a cluster of %d brokers: one broker's loss stops it"
                        + " (and can strand an exactly-once transaction); give it %d with kafka-reassign-partitions.sh, and create"
                        + " new topics with replication.factor=%d (--replication-factor, or the --command-config file)",
                        h.topic(), h.replicas(), brokers, want, want));
            } else if (h.replicas() >= 2 && h.minInsyncReplicas() != null && h.minInsyncReplicas() < 2) {
                out.add(String.format(Locale.ROOT, "topic %s has %d replicas but min.insync.replicas=%d: an acknowledged write may live on"
                        + " one broker only; set min.insync.replicas=2 (kafka-configs.sh --alter --entity-type topics --entity-name %s"
                        + " --add-config min.insync.replicas=2)", h.topic(), h.replicas(), h.minInsyncReplicas(), h.topic()));
            }
        }
        return out;
    }

    /**
     * Describes the topics and logs each problem of their replication at WARN; what it found is
     * returned. A topic created a moment ago may not be known to the broker answering yet: the
     * description is asked again for up to 30 s. The check only informs: a cluster that cannot
     * describe the topics is said at WARN, and nothing is found.
     */
    public static List<Held> check(Admin admin, Collection<String> topics) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (true) {
            try {
                final List<Held> held = describe(admin, topics);
                problems(held, brokers(admin)).forEach(p -> LOG.warn(p));
                return held;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
                    LOG.warn("could not read back the replication of {}: {}", topics, e.getCause().getMessage());
                    return List.of();
                }
            } catch (TimeoutException e) {
                LOG.warn("could not read back the replication of {}: no answer in {} s", topics, TIMEOUT_S);
                return List.of();
            }
            Thread.sleep(100);
        }
    }
}

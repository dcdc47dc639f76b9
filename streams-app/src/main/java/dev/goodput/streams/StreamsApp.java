package dev.goodput.streams;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.goodput.config.ClientConfig;
import dev.goodput.config.ConfigException;
import dev.goodput.config.Failover;
import dev.goodput.failure.DeadLetterHandler;
import dev.goodput.failure.FailurePolicy;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wiring and lifecycle of the streams-app: properties, topic checks, start and close. */
public final class StreamsApp {

    private static final Logger LOG = LoggerFactory.getLogger(StreamsApp.class);
    /** The output producer's batch size unless the user sets one (see {@link #streamsProperties}). */
    static final int BATCH_BYTES = 256 * 1024;

    private StreamsApp() {
    }

    /**
     * Kafka Streams properties: the user's merged client properties, then what this app needs
     * unless the user set it. Exactly-once v2 is the default.
     */
    public static Properties streamsProperties(Properties user, String applicationId, Path stateDir) {
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        // the stores are written after every record ({@link LiveStore}); the cache makes a hot entry's
        // writes between two commits one changelog record (the stores' own values are small: 64 MB is plenty)
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, Long.toString(64L << 20));
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "-1");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), "10000");
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), ClientConfig.staticMemberId(applicationId, stateDir));
        p.putAll(user);
        producerDefault(p, ProducerConfig.LINGER_MS_CONFIG, Long.toString(lingerMs(p)));
        // as the generator's events: one verdict per request made the app's output a quarter of its
        // input's bytes uncompressed; lz4 takes the verdicts to a seventh, for the broker's disk and network
        producerDefault(p, ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        // a commit's output (a verdict per request, changelog records, partial aggregates) lingers up
        // to half the commit interval: batches of 16 KB (Kafka's default) split it into many produce
        // requests per partition, each appended by the broker while the commit's flush waits on them
        producerDefault(p, ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(BATCH_BYTES));
        return p;
    }

    /** Sets a producer property unless the user set it, with or without the producer prefix. */
    private static void producerDefault(Properties p, String key, String value) {
        if (!p.containsKey(key) && !p.containsKey(StreamsConfig.producerPrefix(key))) {
            p.put(StreamsConfig.producerPrefix(key), value);
        }
    }

    /**
     * How long the producer gathers output. Under exactly-once nothing the app writes can be read
     * before its transaction commits, and the commit flushes the producer first, so lingering up to
     * half the commit interval delays no reader; it sends a commit's output in a few large requests
     * instead of many small ones, which the broker answers sooner when the commit waits for them (in
     * bench-streams the commit's flush was the stream thread's longest wait). At least once, every
     * record is readable once sent: 5 ms. A commit interval that is not a number is left for Kafka
     * Streams to refuse by name.
     */
    static long lingerMs(Properties p) {
        if (!StreamsConfig.EXACTLY_ONCE_V2.equals(p.getProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))) {
            return 5;
        }
        try {
            return Math.max(5, Long.parseLong(p.getProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200").trim()) / 2);
        } catch (NumberFormatException notANumber) {
            return 5;
        }
    }


    /**
     * Checks the input topics exist and are co-partitioned (token and request events of one
     * request must meet in one task) and creates missing output topics. Returns the input partitions.
     */
    public static int prepareTopics(Properties clientProps, StreamsSettings c) {
        try (Admin admin = Admin.create(ClientConfig.forAdmin(clientProps))) {
            Topics.createMissing(admin, List.of(Topics.TOKENS.named(c.topics().tokens()),
                    Topics.REQUESTS.named(c.topics().requests())), clientProps);
            final Map<String, TopicDescription> d = admin.describeTopics(List.of(c.topics().tokens(), c.topics().requests()))
                    .allTopicNames().get(30, TimeUnit.SECONDS);
            final int tokens = d.get(c.topics().tokens()).partitions().size();
            final int requests = d.get(c.topics().requests()).partitions().size();
            if (tokens != requests) {
                throw new ConfigException("topic layout", c.topics().tokens() + ", " + c.topics().requests(), List.of(c.topics().tokens() + " has " + tokens + " partitions and "
                        + c.topics().requests() + " has " + requests + ": they must be equal (co-partitioned by request id)"));
            }
            warnUnlessLogAppendTime(admin, List.of(c.topics().tokens(), c.topics().requests()));
            Topics.createMissing(admin, List.of(Topics.VERDICTS.named(c.topics().verdicts()).withPartitions(tokens),
                    Topics.WINDOW_STATS.named(c.topics().windowStats()).withPartitions(tokens),
                    Topics.DLQ.named(c.topics().dlq())), clientProps);
            return tokens;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe the input topics: " + e.getMessage(), e);
        }
    }

    /**
     * Lateness is judged by each record's log time: on {@code LogAppendTime} the broker stamps it; on
     * {@code CreateTime} (raw topics someone else created) each producer's clock does, and one fast
     * clock makes later records late. Said once at start, with the fix.
     */
    static void warnUnlessLogAppendTime(Admin admin, List<String> topics) throws InterruptedException,
            ExecutionException, TimeoutException {
        final var resources = topics.stream().map(t -> new ConfigResource(
                ConfigResource.Type.TOPIC, t)).toList();
        final var configs = admin.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
        for (var e : configs.entrySet()) {
            final var type = e.getValue().get("message.timestamp.type");
            if (type != null && !"LogAppendTime".equals(type.value())) {
                LOG.warn("topic {} has message.timestamp.type={}: each producer's clock, not the broker's, decides which "
                        + "events are late; set it with kafka-configs.sh --alter --entity-type topics --entity-name {} "
                        + "--add-config message.timestamp.type=LogAppendTime", e.getKey().name(), type.value(), e.getKey().name());
            }
        }
    }

    /**
     * The settings with their grace widened by the cluster's failover allowance ({@link Failover}):
     * on a cluster of several brokers a broker's death holds records back until it is fenced, and a
     * grace shorter than that refuses measured requests as late for the cluster's delay, not theirs.
     * A grace the user gave is kept as given. The grace is recorded in every window, so a replay
     * repeats it.
     */
    public static StreamsSettings withFailoverGrace(StreamsSettings c, Properties clientProps) {
        try (Admin admin = Admin.create(ClientConfig.forAdmin(clientProps))) {
            final Duration allowance = Failover.allowance(admin);
            if (allowance.isZero()) {
                return c;
            }
            LOG.info("grace {} plus {} for a broker's failover (broker.session.timeout.ms and an election); --grace sets it",
                    c.grace(), allowance);
            return c.withWindow(c.window(), c.grace().plus(allowance));
        }
    }

    /** The Streams properties that send one record's processing error to the app's DLQ ({@link DeadLetterHandler}). */
    public static Map<String, String> recordFailureProperties(StreamsSettings c) {
        return DeadLetterHandler.properties(c.topics().dlq());
    }

    /** Builds and starts the app; the caller closes it. */
    public static KafkaStreams start(StreamsSettings c, AvroSerdes serdes, Properties streamsProps, boolean reset) {
        return start(c, serdes, streamsProps, reset, new FailurePolicy("streams-app", FailurePolicy.DEFAULT_MAX_REPLACEMENTS));
    }

    /**
     * Builds and starts the app with the caller's failure policy, whose {@link FailurePolicy#reason()} tells why the
     * app reached {@code ERROR}. One record's processing error goes to the DLQ ({@link DeadLetterHandler})
     * unless the properties name another handler.
     */
    public static KafkaStreams start(StreamsSettings c, AvroSerdes serdes, Properties streamsProps,
                                     boolean reset, FailurePolicy failures) {
        c.graceWarning().ifPresent(LOG::warn);
        final Properties props = new Properties();
        props.putAll(streamsProps);
        recordFailureProperties(c).forEach(props::putIfAbsent);
        final Topology topology = GoodputTopology.build(c, serdes);
        final KafkaStreams streams = new KafkaStreams(topology, props);
        if (reset) {
            streams.cleanUp();
        }
        failures.install(streams);
        streams.start();
        return streams;
    }

    /**
     * Closes with a bound, as a shutdown hook should, and leaves the consumer group: by default
     * Kafka Streams stays in it, so an instance started again right away (the demo run twice) got
     * no task until the old member's session timed out, 45 s later.
     */
    public static void close(KafkaStreams streams) {
        streams.close(closeOptions());
    }

    /** A bounded close that leaves the group (the sink, which does not depend on this module, builds its own). */
    private static CloseOptions closeOptions() {
        return CloseOptions.groupMembershipOperation(
                CloseOptions.GroupMembershipOperation.LEAVE_GROUP).withTimeout(Duration.ofSeconds(30));
    }
}

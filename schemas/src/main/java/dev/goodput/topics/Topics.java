package dev.goodput.topics;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.ServerMetrics;
import dev.goodput.avro.TokenEvent;
import dev.goodput.avro.WindowStats;
import dev.goodput.config.Replication;
import dev.goodput.keys.Keys;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Utils;

/** The pipeline's topics, in one place. Names are the defaults the README lists. */
public final class Topics {

    /**
     * Raw topics are the source of truth for replays: they are kept until deleted by hand, and the
     * broker must not age out synthetic or old events (a record older than retention.ms is deleted
     * at once).
     */
    private static final Map<String, String> KEEP_FOREVER = Map.of(
            TopicConfig.RETENTION_MS_CONFIG, "-1",
            TopicConfig.RETENTION_BYTES_CONFIG, "-1",
            TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime");
    /**
     * The raw event topics: kept forever, and stamped by the broker at append (LogAppendTime), so
     * each record carries a time from the log itself. The streams-app refuses an event whose own
     * time is further ahead of that stamp than it allows (a generator with a fast clock): judged
     * from data in the log, the decision is the same live and in every replay. The events keep
     * their own times in their fields, which is what every result is computed from.
     */
    private static final Map<String, String> RAW = Map.of(
            TopicConfig.RETENTION_MS_CONFIG, "-1",
            TopicConfig.RETENTION_BYTES_CONFIG, "-1",
            TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime");
    private static final Map<String, String> COMPACTED = Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);

    public static final int DEFAULT_PARTITIONS = 6;

    public static final Topic<TokenEvent> TOKENS =
            new Topic<>("llm.tokens", TokenEvent.class, DEFAULT_PARTITIONS, RAW);
    public static final Topic<RequestEvent> REQUESTS =
            new Topic<>("llm.requests", RequestEvent.class, DEFAULT_PARTITIONS, RAW);
    public static final Topic<RequestVerdict> VERDICTS =
            new Topic<>("llm.verdicts", RequestVerdict.class, DEFAULT_PARTITIONS, KEEP_FOREVER);
    public static final Topic<WindowStats> WINDOW_STATS =
            new Topic<>("llm.window-stats", WindowStats.class, DEFAULT_PARTITIONS, KEEP_FOREVER);
    public static final Topic<GpuPrice> PRICES =
            new Topic<>("gpu.prices", GpuPrice.class, 1, COMPACTED);
    public static final Topic<CostRecord> COST =
            new Topic<>("llm.cost", CostRecord.class, DEFAULT_PARTITIONS, KEEP_FOREVER);
    public static final Topic<RunSummary> RUNS =
            new Topic<>("llm.runs", RunSummary.class, 1, KEEP_FOREVER);
    /** Samples of the engine's own metrics endpoint during runs (ServerMetrics), kept with the raw events for replay. */
    public static final Topic<ServerMetrics> SERVER_METRICS =
            new Topic<>("llm.server-metrics", ServerMetrics.class, 1, KEEP_FOREVER);
    public static final Topic<byte[]> DLQ =
            new Topic<>("llm.dlq", byte[].class, 1, KEEP_FOREVER);
    /** The in-process registry's own compacted store, laid out as Confluent's. */
    public static final String SCHEMAS = "_schemas";

    public static final List<Topic<?>> ALL = List.of(TOKENS, REQUESTS, VERDICTS, WINDOW_STATS, PRICES, COST, RUNS, SERVER_METRICS,
            DLQ);

    private Topics() {
    }

    /**
     * The partition of a window-stats record: by its contract|scenario (the key without the window
     * start), so that one scenario's windows stay on one partition in the order they closed, which
     * the sink's rolling spans rely on.
     */
    public static int windowStatsPartition(String windowKey, int partitions) {
        return scenarioPartition(Keys.Window.scenarioText(windowKey), partitions);
    }

    /**
     * The partition of everything keyed by a contract|scenario: the streams-app's window mergers and
     * its window-stats records, placed as Kafka's default partitioner places a key (murmur2).
     */
    public static int scenarioPartition(String scenarioKey, int partitions) {
        return Utils.toPositive(Utils.murmur2(scenarioKey.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    /**
     * Waits until every topic is described with a leader for each partition: a topic just created
     * can be unknown for a moment to the broker a client asks next (a first start of the streams-app
     * failed with UnknownTopicOrPartitionException describing topics it had just created).
     */
    static Map<String, TopicDescription> awaitDescribed(Admin admin, List<String> names) throws InterruptedException, TimeoutException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Throwable last = null;
        while (System.nanoTime() < deadline) {
            try {
                final var d = admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS);
                if (d.values().stream().allMatch(t -> t.partitions().stream().allMatch(p -> p.leader() != null))) {
                    return d;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException)) {
                    throw new IllegalStateException("cannot describe topics " + names + ": " + e.getCause().getMessage(), e.getCause());
                }
                last = e.getCause();
            }
            Thread.sleep(100);
        }
        throw new TimeoutException("topics " + names + " were not described with leaders within 30 s"
                + (last == null ? "" : " (" + last.getMessage() + ")"));
    }

    /** The partitions of an existing topic, once it is described with a leader for each. */
    public static int partitions(Admin admin, String topic) {
        try {
            return awaitDescribed(admin, List.of(topic)).get(topic).partitions().size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted describing " + topic, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot describe " + topic + ": " + e.getMessage(), e);
        }
    }

    /**
     * Creates the topics that do not exist yet; existing topics are left as they are.
     *
     * @return names of the topics created
     */
    public static Set<String> createMissing(Admin admin, List<Topic<?>> topics, Properties client) {
        return createMissing(admin, topics, Replication.factor(client));
    }

    /**
     * The same with a replication factor (-1: the broker's default); the replication every topic got,
     * created now or found, is read back and its problems logged ({@link Replication#check}).
     */
    public static Set<String> createMissing(Admin admin, List<Topic<?>> topics, short replicationFactor) {
        try {
            final Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            final List<NewTopic> missing = topics.stream().filter(t -> !existing.contains(t.name()))
                    .map(t -> t.newTopic(replicationFactor)).toList();
            final Set<String> created = new HashSet<>();
            for (var e : admin.createTopics(missing).values().entrySet()) {
                try {
                    e.getValue().get(30, TimeUnit.SECONDS);
                    created.add(e.getKey());
                } catch (ExecutionException ex) {
                    // another process created it between the listing and now: it exists, which is what we want
                    if (!(ex.getCause() instanceof TopicExistsException)) {
                        throw ex;
                    }
                }
            }
            awaitDescribed(admin, topics.stream().map(Topic::name).toList());
            Replication.check(admin, topics.stream().map(Topic::name).toList());
            return created;
        } catch (ExecutionException e) {
            throw new IllegalStateException("creating topics failed: " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("Kafka did not answer within 30 s while creating topics: " + e.getMessage(), e);
        }
    }
}

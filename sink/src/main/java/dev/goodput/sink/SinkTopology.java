package dev.goodput.sink;

import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.WindowStats;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.serde.StateSerdes;
import dev.goodput.keys.Keys;
import dev.goodput.topics.Topics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.Stores;

/**
 * The sink's topology, one pure factory:
 * <pre>
 * gpu.prices ─► price-gate ─┬─► llm.dlq (refused prices, once, with their gpu.prices position)
 *                            └─► &lt;app&gt;-prices-broadcast-repartition (every price to every partition) ─┐
 * llm.window-stats (partitioned by contract|scenario where it is written) ──────────────────────────────┴─► cost-processor ─► llm.cost
 *                                                                               (gpu-price-versions, recent-windows)
 * </pre>
 * Every task sees every price version and all the windows of its scenarios, in the order they
 * closed: the streams-app writes a scenario's windows to one partition ({@link Topics#windowStatsPartition}),
 * the one partitioning they get, and the prices are broadcast to as many partitions as
 * llm.window-stats has. So several instances with one application id split the work and emit the
 * same records as one.
 */
public final class SinkTopology {

    /** Marks a price record's key after the merge (window keys never start with it). */
    static final String PRICE_PREFIX = "\u0000price:";

    private SinkTopology() {
    }

    /** The topology for a window-stats topic of {@link Topics#WINDOW_STATS}' partitions. */
    public static Topology build(SinkConfig c, AvroSerdes serdes) {
        return build(c, serdes, Topics.WINDOW_STATS.partitions());
    }

    /** The topology for a window-stats topic of {@code windowPartitions} partitions (the prices go to each). */
    public static Topology build(SinkConfig c, AvroSerdes serdes, int windowPartitions) {
        final StreamsBuilder b = new StreamsBuilder();
        b.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(CostProcessor.PRICES), Serdes.String(),
                StateSerdes.of(PriceVersions.CODEC)));
        b.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(CostProcessor.RECENT), Serdes.String(),
                StateSerdes.of(PricedWindow.RECENT)));
        // the prices are broadcast to as many partitions as the windows have, so each cost task reads one partition of
        // each and takes records in timestamp order: a price (stamped with its effective date) comes before the windows
        // it prices
        final int partitions = windowPartitions;
        final AvroDeserializer<GpuPrice> priceReader = new AvroDeserializer<>(serdes.registry(), GpuPrice.class);
        final KStream<String, byte[]> prices = b.stream(c.pricesTopic(),
                        Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("prices-source"))
                .process(() -> new PriceGate(c.pricesTopic(), priceReader), Named.as(PriceGate.NAME))
                .split(Named.as("price-route-"))
                .branch((k, v) -> v instanceof PriceGate.DeadBytes, Branched.withConsumer(s -> s
                        .mapValues(v -> ((PriceGate.DeadBytes) v).value(), Named.as("dead-price-values"))
                        .to(c.dlqTopic(), Produced.with(Serdes.String(), Serdes.ByteArray()).withName("sink-dlq")), "dlq"))
                .defaultBranch(Branched.as("good"))
                .get("price-route-good")
                .mapValues(v -> (byte[]) v, Named.as("good-price-values"))
                .repartition(Repartitioned.<String, byte[]>as("prices-broadcast").withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.ByteArray()).withNumberOfPartitions(partitions)
                        .withStreamPartitioner(new Broadcast()));
        final KStream<String, byte[]> windows = b.stream(c.windowStatsTopic(),
                        Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("window-stats-source"))
                // keyed by scenario for the processor's stores; no repartition: the writer's partitioning is by scenario
                .selectKey((k, v) -> scenarioKey(k), Named.as("key-windows-by-scenario"));
        final KStream<String, byte[]> merged = prices.merge(windows, Named.as("prices-and-windows"));
        final AvroDeserializer<WindowStats> windowReader = new AvroDeserializer<>(serdes.registry(), WindowStats.class);
        final AvroSerializer<GpuPrice> priceWriter = new AvroSerializer<>(serdes.registry(), false);
        merged
                .process(() -> new CostProcessor(c, priceReader, windowReader, priceWriter), Named.as(CostProcessor.NAME),
                        CostProcessor.PRICES, CostProcessor.RECENT)
                .to(c.costTopic(), Produced.with(Serdes.String(), serdes.value(CostRecord.class)).withName("cost-sink"));
        return b.build();
    }

    /** contract|scenario of a window-stats key (contract|scenario|window start): one scenario's windows stay in one task. */
    static String scenarioKey(String windowKey) {
        if (windowKey == null) {
            return "";
        }
        return Keys.Window.scenarioText(windowKey);
    }

    /** Every price record goes to every partition. */
    static final class Broadcast implements StreamPartitioner<String, byte[]> {
        @Override
        public Optional<Set<Integer>> partitions(String topic, String key, byte[] value, int numPartitions) {
            return Optional.of(IntStream.range(0, numPartitions).boxed().collect(Collectors.toSet()));
        }
    }
}

package dev.goodput.sink;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.WindowStats;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.serde.AvroSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * The sink's topology, one pure factory:
 * <pre>
 * gpu.prices ─────────────────────────────┐
 * llm.window-stats ─► (one partition) ────┴─► cost-processor (gpu-price-versions, recent-windows) ─┬─► llm.cost
 *                                                                                                  └─► llm.dlq
 * </pre>
 * Window stats are few (one per window and scenario), so they meet the prices on one partition and
 * every window sees every price version.
 */
public final class SinkTopology {
    private SinkTopology() {
    }

    public static Topology build(SinkConfig c, AvroSerdes serdes) {
        final StreamsBuilder b = new StreamsBuilder();
        b.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(CostProcessor.PRICES), Serdes.String(),
                Serdes.ByteArray()));
        b.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(CostProcessor.RECENT), Serdes.String(),
                Serdes.ByteArray()));
        final KStream<String, byte[]> prices = b.stream(c.pricesTopic(),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("prices-source"));
        final KStream<String, byte[]> windows = b.stream(c.windowStatsTopic(),
                        Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("window-stats-source"))
                .repartition(Repartitioned.<String, byte[]>as("window-stats-one-partition").withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.ByteArray()).withNumberOfPartitions(1));
        final AvroDeserializer<GpuPrice> priceReader = new AvroDeserializer<>(serdes.registry(), GpuPrice.class);
        final AvroDeserializer<WindowStats> windowReader = new AvroDeserializer<>(serdes.registry(), WindowStats.class);
        final AvroSerializer<GpuPrice> priceWriter = new AvroSerializer<>(serdes.registry(), false);
        prices.merge(windows, Named.as("prices-and-windows"))
                .process(() -> new CostProcessor(c, priceReader, windowReader, priceWriter), Named.as(CostProcessor.NAME),
                        CostProcessor.PRICES, CostProcessor.RECENT)
                .split(Named.as("cost-route-"))
                .branch((k, v) -> v instanceof CostProcessor.DeadBytes, Branched.withConsumer(s -> s
                        .mapValues(v -> ((CostProcessor.DeadBytes) v).value(), Named.as("dead-price-values"))
                        .to(c.dlqTopic(), Produced.with(Serdes.String(), Serdes.ByteArray()).withName("sink-dlq")), "dlq"))
                .defaultBranch(Branched.withConsumer(s -> s
                        .mapValues(v -> (CostRecord) v, Named.as("cost-values"))
                        .to(c.costTopic(), Produced.with(Serdes.String(), serdes.value(CostRecord.class)).withName("cost-sink")),
                        "cost"));
        return b.build();
    }
}

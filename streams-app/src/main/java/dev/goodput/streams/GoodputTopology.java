package dev.goodput.streams;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.TokenEvent;
import dev.goodput.avro.WindowStats;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.topics.Topics;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The streams-app topology, built by one pure factory that tests and {@code main} share.
 *
 * <pre>
 * llm.tokens ─┐                                   ┌─► llm.verdicts      (per request)
 *             ├─► request-assembler (per input ───┼─► llm.dlq          (refused events, original bytes)
 * llm.requests┘   partition; inflight-requests,   └─► &lt;app&gt;-request-partials-repartition
 *                 assembler-partials)                   │ (partial aggregates keyed by contract|scenario,
 *                                                       │  each heartbeat; watermarks broadcast)
 *                                                       ▼
 *                                     window-merger (window-aggregates-v2, upstream-watermarks) ─► llm.window-stats
 * </pre>
 *
 * Input topics must be co-partitioned (same partition count, keyed by request id).
 */
public final class GoodputTopology {

    /**
     * Internal topic and store names carry their encoding: a new encoding gets a new name, so state
     * left by an older build (the demo keeps its broker data between runs) is left alone instead of
     * failing to decode. The merger's topic held one sample per request before partial aggregates.
     */
    static final String SAMPLES = "request-partials";

    private GoodputTopology() {
    }

    public static Topology build(StreamsSettings config, AvroSerdes serdes) {
        final StreamsBuilder b = new StreamsBuilder();
        for (String store : List.of(RequestAssembler.STORE, RequestAssembler.PROGRESS, RequestAssembler.PARTIALS,
                RequestAssembler.FINISHED, WindowMerger.WINDOWS, WindowMerger.WATERMARKS)) {
            b.addStateStore(KafkaByteStore.builder(store));
        }

        // One source for both topics: the assembler tells them apart by the record's topic, and a
        // merge node would cost a hop per record.
        final KStream<String, byte[]> raw = b.stream(List.of(config.topics().tokens(), config.topics().requests()),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("raw-events-source"));
        final AvroDeserializer<TokenEvent> tokenReader = new AvroDeserializer<>(serdes.registry(), TokenEvent.class);
        final AvroDeserializer<RequestEvent> requestReader = new AvroDeserializer<>(serdes.registry(), RequestEvent.class);

        final KStream<String, Out> assembled = raw
                .process(() -> new RequestAssembler(config, serdes.registry(), tokenReader, requestReader,
                                serdes.value(TokenEvent.class).serializer()),
                        Named.as(RequestAssembler.NAME),
                        RequestAssembler.STORE, RequestAssembler.PROGRESS, RequestAssembler.PARTIALS, RequestAssembler.FINISHED);

        // the assembler forwards each kind of record to its own node by name (Out.send); verdicts, one
        // per request, straight to their sink, whose serializer unwraps them: a node less per request
        final VerdictWriter verdicts = new VerdictWriter(serdes.registry());
        final Deserializer<RequestVerdict> verdictReader = serdes.value(RequestVerdict.class).deserializer();
        assembled.to(config.topics().verdicts(), Produced.with(Serdes.String(), Serdes.<Out>serdeFrom(
                        (topic, v) -> verdicts.serialize(topic, v == null ? null : ((Out.Verdict) v).value()),
                        (topic, bytes) -> new Out.Verdict(verdictReader.deserialize(topic, bytes))))
                .withName(Out.Verdict.NODE));
        assembled.mapValues(v -> ((Out.Dead) v).value(), Named.as(Out.Dead.NODE))
                .to(config.topics().dlq(), Produced.with(Serdes.String(), Serdes.ByteArray()).withName("dlq-sink"));
        assembled.mapValues(v -> ((Out.ToMerger) v).value(), Named.as(Out.ToMerger.NODE))
                .repartition(Repartitioned.<String, byte[]>as(SAMPLES).withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.ByteArray()).withStreamPartitioner(new SamplePartitioner()))
                .process(() -> new WindowMerger(config), Named.as(WindowMerger.NAME), WindowMerger.WINDOWS,
                        WindowMerger.WATERMARKS)
                .to(config.topics().windowStats(), Produced.with(Serdes.String(), serdes.value(WindowStats.class))
                        .withName("window-stats-sink").withStreamPartitioner((topic, key, value, n) ->
                                Optional.of(Set.of(Topics.windowStatsPartition(key, n)))));
        return b.build();
    }

    /** Samples go to the merger that owns their contract|scenario; watermarks go to every merger. */
    static final class SamplePartitioner implements StreamPartitioner<String, byte[]> {
        @Override
        public Optional<Set<Integer>> partitions(String topic, String key, byte[] value, int numPartitions) {
            if (RequestAssembler.WATERMARK_KEY.equals(key)) {
                return Optional.of(IntStream.range(0, numPartitions).boxed().collect(Collectors.toSet()));
            }
            return Optional.of(Set.of(Topics.scenarioPartition(key, numPartitions)));
        }
    }
}

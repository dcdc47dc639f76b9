package dev.goodput.runner;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import dev.goodput.config.Settings;
import dev.goodput.contract.Contract;
import dev.goodput.failure.FailurePolicy;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroSerdes;
import dev.goodput.sink.SinkApp;
import dev.goodput.streams.StreamsApp;
import dev.goodput.streams.StreamsSettings;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The streams-app and the sink of a run on one machine (the demo, a replay), as the two applications
 * run them: started together, closed sink first (it prices what the streams-app closed last).
 */
final class LocalPipeline implements AutoCloseable {
    private final KafkaStreams streams;
    private final FailurePolicy streamsFailures;
    private final SinkApp.Running sink;

    private LocalPipeline(KafkaStreams streams, FailurePolicy streamsFailures, SinkApp.Running sink) {
        this.streams = streams;
        this.streamsFailures = streamsFailures;
        this.sink = sink;
    }

    /**
     * Starts the streams-app under {@code applicationId} with its state in {@code streamsState}, then
     * the sink, if {@code sink} is not null (a replay without prices runs none).
     */
    static LocalPipeline start(Properties client, SchemaRegistryClient registry, StreamsSettings settings, String applicationId,
                               Path streamsState, SinkApp.Options sink) {
        final FailurePolicy failures = new FailurePolicy("streams-app", FailurePolicy.DEFAULT_MAX_REPLACEMENTS);
        final KafkaStreams streams = StreamsApp.start(settings, new AvroSerdes(registry),
                StreamsApp.streamsProperties(client, applicationId, streamsState), false, failures);
        try {
            return new LocalPipeline(streams, failures, sink == null ? null : SinkApp.start(client, registry, sink));
        } catch (RuntimeException e) {
            StreamsApp.close(streams);
            throw e;
        }
    }

    /**
     * A local run's streams-app settings: the windowing GOODPUT_WINDOW / GOODPUT_GRACE give (the run's own
     * topics stay), on a cluster of several brokers a grace that allows for a broker's failover unless
     * GOODPUT_GRACE gave one, the --goodput objectives, the input topics' partitions.
     */
    static StreamsSettings settings(Contract contract, Contract.Objectives objectives, Properties props) {
        final Map<String, Settings.Value> windowing = Settings.merge(null, System.getenv(), Map.of(), Set.of("window", "grace"));
        final StreamsSettings asGiven = StreamsSettings.apply(StreamsSettings.defaults(Map.of(contract.id(), contract)), windowing);
        final StreamsSettings defaults = windowing.containsKey("grace") ? asGiven : StreamsApp.withFailoverGrace(asGiven, props);
        return (objectives == null ? defaults : defaults.withObjectives(objectives))
                .withUpstreamPartitions(StreamsApp.prepareTopics(props, defaults));
    }

    KafkaStreams streams() {
        return streams;
    }

    FailurePolicy streamsFailures() {
        return streamsFailures;
    }

    /** The sink, or null when none runs. */
    SinkApp.Running sink() {
        return sink;
    }

    @Override
    public void close() {
        try {
            if (sink != null) {
                sink.close();
            }
        } finally {
            StreamsApp.close(streams);
        }
    }
}

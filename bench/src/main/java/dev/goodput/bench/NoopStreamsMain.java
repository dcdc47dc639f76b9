package dev.goodput.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import dev.goodput.config.ClientConfig;
import dev.goodput.streams.StreamsApp;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The benchmark's baseline: a Kafka Streams app with the streams-app's own settings (and the same
 * {@code GOODPUT_KAFKA_*} overrides) whose processor does nothing, over the same input topics. What
 * it reaches is the ceiling any per-record Kafka Streams processor has on the machine. Not a user
 * command: bench-streams starts it in a child JVM with {@code bootstrap stateDir applicationId topic...}.
 */
public final class NoopStreamsMain {

    private NoopStreamsMain() {
    }

    public static void main(String[] args) throws Exception {
        // the app's own merge, so GOODPUT_KAFKA_* overrides reach the baseline too
        final Properties user = ClientConfig.merge(null, System.getenv(), Map.of("bootstrap.servers", args[0]), Map.of());
        final Properties p = StreamsApp.streamsProperties(user, args[2], Path.of(args[1]));
        final StreamsBuilder b = new StreamsBuilder();
        b.stream(List.of(args).subList(3, args.length), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("inputs"))
                .process(() -> new Processor<byte[], byte[], Void, Void>() {
                    @Override
                    public void process(Record<byte[], byte[]> record) {
                        // nothing: the cost of getting a record to a processor is what is measured
                    }
                }, Named.as("noop"));
        final KafkaStreams streams = new KafkaStreams(b.build(), p);
        final CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close(Duration.ofSeconds(20));
            stop.countDown();
        }, "goodput-noop-shutdown"));
        streams.start();
        System.out.println("noop-streams " + args[2]);
        stop.await();
    }
}

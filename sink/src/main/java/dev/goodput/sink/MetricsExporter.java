package dev.goodput.sink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.WindowStats;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Serves the latest final window of every (contract, scenario) and its cost on a Prometheus /
 * OpenMetrics endpoint, read from llm.window-stats and llm.cost (committed records only), so what
 * Prometheus scrapes is what the topics hold. Latency names follow the OpenTelemetry GenAI
 * semantic conventions where one fits (see the README's mapping), in seconds, one gauge per quantile.
 */
public final class MetricsExporter implements AutoCloseable {

    private final GoodputMetrics metrics = new GoodputMetrics();
    private final HTTPServer server;
    private final KafkaConsumer<String, byte[]> consumer;
    private final AvroDeserializer<WindowStats> windows;
    private final AvroDeserializer<CostRecord> costs;
    private final String windowTopic;
    private final String costTopic;
    private final Thread thread;
    private volatile boolean running = true;

    public MetricsExporter(String bootstrap, SchemaRegistryClient schemaRegistry, String windowTopic, String costTopic,
                           String host, int port) {
        this.windowTopic = windowTopic;
        this.costTopic = costTopic;
        this.windows = new AvroDeserializer<>(schemaRegistry, WindowStats.class);
        this.costs = new AvroDeserializer<>(schemaRegistry, CostRecord.class);
        try {
            this.server = HTTPServer.builder().inetAddress(InetAddress.getByName(host)).port(port).registry(metrics.registry())
                    .buildAndStart();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port, e);
        }
        final Properties p = dev.goodput.config.ReaderProps.committedFromStart(bootstrap, "goodput-metrics");
        this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(windowTopic, costTopic));
        this.thread = new Thread(this::run, "goodput-metrics");
        thread.setDaemon(true);
        thread.start();
    }

    /** The scrape URL. */
    public String url() {
        return "http://127.0.0.1:" + server.getPort() + "/metrics";
    }

    public int port() {
        return server.getPort();
    }

    private void run() {
        try {
            while (running) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    try {
                        if (r.topic().equals(windowTopic)) {
                            metrics.onWindow(windows.deserialize(r.topic(), r.value()));
                        } else if (r.topic().equals(costTopic)) {
                            metrics.onCost(costs.deserialize(r.topic(), r.value()));
                        }
                    } catch (RuntimeException e) {
                        // an unreadable record is the DLQ's business upstream; metrics skip it
                    }
                }
            }
        } catch (org.apache.kafka.common.errors.WakeupException stop) {
            // closing
        } finally {
            consumer.close();
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.close();
    }
}

package dev.goodput.runner;

import java.io.PrintStream;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

import dev.goodput.avro.WindowStats;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Prints one row per closed window from llm.window-stats (committed records only): scenario,
 * requests, good %, TTFT p50/p99, ITL p99, TPOT p99, goodput.
 */
final class LiveTable implements Runnable, AutoCloseable {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final String HEADER = String.format(Locale.ROOT, "%-8s %-20s %8s %7s %9s %9s %8s %8s %9s %11s",
            "window", "scenario", "requests", "good %", "TTFT p50", "TTFT p99", "ITL p99", "TPOT p99", "goodput", "good tok/s");

    private final KafkaConsumer<String, WindowStats> consumer;
    private final PrintStream out;
    private volatile boolean running = true;
    private int rows;

    LiveTable(String bootstrap, SchemaRegistryClient registry, String topic, PrintStream out) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "goodput-live-table-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new AvroDeserializer<>(registry, WindowStats.class));
        consumer.subscribe(List.of(topic));
        this.out = out;
    }

    @Override
    public void run() {
        try {
            while (running) {
                for (ConsumerRecord<String, WindowStats> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value() != null && r.value().getIsFinal()) {
                        print(r.value());
                    }
                }
            }
        } catch (org.apache.kafka.common.errors.WakeupException stop) {
            // closing
        } finally {
            consumer.close();
        }
    }

    private void print(WindowStats w) {
        if (rows++ % 20 == 0) {
            out.println(HEADER);
        }
        out.println(String.format(Locale.ROOT, "%-8s %-20s %8d %6.1f%% %7.1fms %7.1fms %6.1fms %6.1fms %7.2f/s %11.1f",
                TIME.format(w.getWindowStartUs()), w.getScenarioId(), w.getRequestsTotal(), 100 * w.getGoodFraction(),
                w.getTtft().getP50Us() / 1e3, w.getTtft().getP99Us() / 1e3, w.getItl().getP99Us() / 1e3,
                w.getTpot().getP99Us() / 1e3, w.getGoodputRps(), w.getGoodputTokensPerS()));
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
    }
}

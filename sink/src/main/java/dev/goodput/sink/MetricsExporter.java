package dev.goodput.sink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.registry.SchemaRegistryClient;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;

/**
 * Serves, on a Prometheus / OpenMetrics endpoint, per-request histograms and counters named as
 * the OpenTelemetry GenAI semantic conventions name client-side measurements ({@link ClientMetrics},
 * from llm.verdicts and final windows), the latest final window of every (contract, scenario) and
 * its cost as gauges ({@link GoodputMetrics}), and the JVM's own metrics; committed records only,
 * so what Prometheus scrapes is what the topics hold.
 */
public final class MetricsExporter implements AutoCloseable {

    private final GoodputMetrics metrics;
    private final HTTPServer server;
    private final ResultsFollower follower;
    private final ClientMetricsFollower clientFollower;
    private final OtlpExport otlp;
    private final ConsumerLag lag;

    public MetricsExporter(Properties client, SchemaRegistryClient schemaRegistry, String windowTopic, String costTopic,
                           String host, int port) {
        this(client, schemaRegistry, windowTopic, costTopic, null, Map.of(), "goodput-sink", host, port, null,
                GoodputMetrics.DEFAULT_STALE_AFTER, List.of());
    }

    /**
     * With {@code verdictTopic}, also the per-request histograms and counters ({@link ClientMetrics}),
     * labelled with each contract's model and runtime, fed under the group {@code group}-client-metrics.
     */
    public MetricsExporter(Properties client, SchemaRegistryClient schemaRegistry, String windowTopic, String costTopic,
                           String verdictTopic, Map<String, Contract> contracts, String group,
                           String host, int port, OtlpExport otlp, Duration staleAfter, List<String> lagGroups) {
        this.metrics = new GoodputMetrics(staleAfter);
        this.lag = lagGroups.isEmpty() ? null : new ConsumerLag(client, lagGroups, metrics.consumerLag(), Duration.ofSeconds(5));
        JvmMetrics.builder().register(metrics.registry());
        final ClientMetrics perRequest = new ClientMetrics(metrics.registry(), contracts);
        this.otlp = otlp;
        if (otlp != null) {
            perRequest.alsoTo(otlp.meter());
        }
        try {
            this.server = HTTPServer.builder().inetAddress(InetAddress.getByName(host)).port(port).registry(metrics.registry())
                    .buildAndStart();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port, e);
        }
        this.follower = new ResultsFollower(client, schemaRegistry, windowTopic, costTopic, "goodput-definitions", false,
                new ResultsFollower.Listener() {
                    @Override
                    public void onWindow(WindowStats w) {
                        metrics.onWindow(w);
                    }

                    @Override
                    public void onCost(CostRecord c) {
                        metrics.onCost(c);
                    }

                    @Override
                    public void afterPoll() {
                        metrics.expire(System.nanoTime());
                    }
                });
        this.clientFollower = verdictTopic == null ? null : new ClientMetricsFollower(client, schemaRegistry, verdictTopic,
                windowTopic, group + "-client-metrics", perRequest);
    }

    /** Waits until the per-request metrics read the verdicts (any published after this are counted); false on timeout. */
    public boolean awaitClientMetricsReady(Duration timeout) throws InterruptedException {
        return clientFollower != null && clientFollower.awaitReady(timeout);
    }

    /** The scrape URL. */
    public String url() {
        return "http://127.0.0.1:" + server.getPort() + "/metrics";
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        if (clientFollower != null) {
            clientFollower.close();
        }
        if (otlp != null) {
            otlp.close();
        }
        if (lag != null) {
            lag.close();
        }
        follower.close();
        server.close();
    }
}

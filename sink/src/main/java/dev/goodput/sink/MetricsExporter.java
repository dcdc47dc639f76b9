package dev.goodput.sink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;

import dev.goodput.avro.CostRecord;
import dev.goodput.avro.WindowStats;
import dev.goodput.registry.SchemaRegistryClient;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;

/**
 * Serves the latest final window of every (contract, scenario) and its cost on a Prometheus /
 * OpenMetrics endpoint, read from llm.window-stats and llm.cost (committed records only), so what
 * Prometheus scrapes is what the topics hold. Latency names follow the OpenTelemetry GenAI
 * semantic conventions where one fits (see the README's mapping), in seconds, one gauge per quantile.
 */
public final class MetricsExporter implements AutoCloseable {

    private final GoodputMetrics metrics = new GoodputMetrics();
    private final HTTPServer server;
    private final ResultsFollower follower;

    public MetricsExporter(java.util.Properties client, SchemaRegistryClient schemaRegistry, String windowTopic, String costTopic,
                           String host, int port) {
        try {
            this.server = HTTPServer.builder().inetAddress(InetAddress.getByName(host)).port(port).registry(metrics.registry())
                    .buildAndStart();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port, e);
        }
        this.follower = new ResultsFollower(client, schemaRegistry, windowTopic, costTopic, "goodput-metrics", false,
                new ResultsFollower.Listener() {
                    @Override
                    public void onWindow(WindowStats w) {
                        metrics.onWindow(w);
                    }

                    @Override
                    public void onCost(CostRecord c) {
                        metrics.onCost(c);
                    }
                });
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
        follower.close();
        server.close();
    }
}

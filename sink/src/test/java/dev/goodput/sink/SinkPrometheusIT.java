package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.kafka.KafkaBrokerExtension;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.serde.AvroSerializer;
import dev.goodput.testing.SampleRecords;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's worked example through the real sink topology on a real broker, then scraped by
 * a real Prometheus server (Debian's package): the PromQL answers equal the cost topic's values.
 */
@ExtendWith(KafkaBrokerExtension.class)
class SinkPrometheusIT {

    @Test
    void workedExampleOnTheBrokerAndThroughPrometheus(EmbeddedKafka kafka, @TempDir Path dir) throws Exception {
        final Instant t0 = Instant.ofEpochSecond((Instant.now().minusSeconds(300).getEpochSecond() / 10) * 10);
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            final Properties props = new Properties();
            props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            final GpuPrice price = GpuPrice.newBuilder(SampleRecords.price()).setPriceKey("example/h100").setUsdPerGpuHour(6.5)
                    .setEffectiveFromUs(t0.minusSeconds(3600)).setCpuUsdPerHour(0).setStorageUsdPerHour(0)
                    .setNetworkUsdPerHour(0).setObservabilityUsdPerHour(0).setSupportUsdPerHour(0)
                    .setColdStartGpuHoursPerHour(0).setWarmHeadroomFraction(0).build();
            final SinkConfig config = SinkConfig.defaults(Map.of("c".repeat(64), 1400.0));
            // the run's contract names the model and runtime that label the per-request metrics, as in a real run
            final Map<String, Contract> contracts = Map.of("c".repeat(64), ContractLoader.load(Path.of("../config/contract.yaml")));
            try (SinkApp.Running sink = SinkApp.start(props, client, SinkApp.Options.of(config, List.of(price), "sink-it",
                    dir.resolve("state")).contracts(contracts));
                 FileExporter files = new FileExporter(props, client, config.windowStatsTopic(),
                         config.costTopic(), dir.resolve("files"))) {
                final WindowStats w = WindowStats.newBuilder(SampleRecords.windowStats()).setWindowStartUs(t0)
                        .setWindowEndUs(t0.plusSeconds(10)).setIsFinal(true).setPriceKey("example/h100").setGpuCount(1)
                        .setRequestsTotal(100).setGoodRequests(85).setOutputTokensOk(7_700).setOutputTokensGood(6_545)
                        .setGoodputRps(8.5).build();
                // the price reaches every cost task before the window does (see PriceStores)
                PriceStores.await(List.of(sink.streams()), "example/h100", 1);
                final Properties p = new Properties();
                p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
                try (KafkaProducer<String, WindowStats> producer = new KafkaProducer<>(p, new StringSerializer(),
                        new AvroSerializer<>(client, false))) {
                    producer.send(new ProducerRecord<>(config.windowStatsTopic(), null, t0.plusSeconds(10).toEpochMilli(),
                            "w", w)).get();
                }
                // 200 verdicts with TTFTs of 2, 4, ..., 400 ms: each one observation in the per-request histograms
                assertThat(sink.metrics().awaitClientMetricsReady(Duration.ofSeconds(60))).isTrue();
                final List<Long> ttfts = new ArrayList<>();
                try (KafkaProducer<String, RequestVerdict> producer = new KafkaProducer<>(p, new StringSerializer(),
                        new AvroSerializer<>(client, false))) {
                    for (int i = 1; i <= 200; i++) {
                        ttfts.add(i * 2_000L);
                        producer.send(new ProducerRecord<>(Topics.VERDICTS.name(), "v" + i,
                                RequestVerdict.newBuilder(SampleRecords.verdict()).setRequestId("v" + i)
                                        .setStatus(RequestStatus.OK).setErrorClass(null).setTtftUs(i * 2_000L)
                                        .setE2eUs(500_000L + i * 2_000L).setOperation("chat").setTargetId("sim").setPromptTokens(64)
                                        .build()));
                    }
                    producer.flush();
                }
                final CostRecord cost = readWindowCost(kafka, client, config.costTopic());
                assertThat(cost.getComputeCostPerMUsd()).isCloseTo(2.3449, within(0.00005));
                assertThat(cost.getCostPerSuccessfulMUsd()).isCloseTo(2.7587, within(0.00005));
                assertFiles(dir.resolve("files"), cost);

                RealPrometheus.assumeInstalled();
                // on a port the kernel picks: none is assumed free
                try (RealPrometheus prom = new RealPrometheus(dir.resolve("prometheus"), "127.0.0.1:" + sink.metrics().port())) {
                    final int port = prom.port();
                    final double successful = query(port, "goodput_cost_per_successful_million_tokens_usd{span=\"window\"}");
                    final double compute = query(port, "goodput_compute_cost_per_million_tokens_usd{span=\"window\"}");
                    final double goodput = query(port, "goodput_good_requests_per_second");
                    assertThat(successful).isEqualTo(cost.getCostPerSuccessfulMUsd());
                    assertThat(compute).isEqualTo(cost.getComputeCostPerMUsd());
                    assertThat(goodput).isEqualTo(w.getGoodputRps());
                    // the per-request histogram through Prometheus: every verdict once, and histogram_quantile within
                    // the width of the bucket that holds the exact p99
                    assertThat(query(port, "sum(gen_ai_client_operation_time_to_first_chunk_seconds_count) == 200")).isEqualTo(200);
                    final double p99 = query(port, "histogram_quantile(0.99, sum by (le) "
                            + "(gen_ai_client_operation_time_to_first_chunk_seconds_bucket))");
                    final double exact = ttfts.get((int) Math.ceil(0.99 * ttfts.size()) - 1) / 1e6;
                    double lower = 0;
                    double upper = Double.MAX_VALUE;
                    for (double b : ClientMetrics.classicBuckets(contracts.values()).get(ClientMetrics.Instrument.TIME_TO_FIRST_CHUNK)) {
                        if (b < exact) {
                            lower = b;
                        } else {
                            upper = Math.min(upper, b);
                        }
                    }
                    assertThat(p99).as("p99 %.3f s, exact %.3f s, bucket (%.2f, %.2f]", p99, exact, lower, upper)
                            .isBetween(lower, upper);
                    // the sink's own consumer group's lag
                    assertThat(query(port, "goodput_consumer_group_lag_records{group=\"sink-it\"} >= 0")).isGreaterThanOrEqualTo(0);
                    // the shipped dashboard's queries and legends, as Grafana draws them
                    assertThat(DashboardCheck.check(port)).isPositive();
                    // and promtool accepts the whole endpoint (JVM metrics included)
                    final HttpResponse<String> scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create(sink.metrics().url())).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(scrape.body()).contains("gen_ai_client_operation_time_to_first_chunk_seconds_bucket")
                            .contains("jvm_memory_used_bytes").doesNotContain("quantile=");
                    ClientMetricsTest.promtool(scrape.body());
                }
            }
        }
    }

    /** The same records in the JSON-lines and CSV files. */
    private static void assertFiles(Path files, CostRecord cost) throws Exception {
        final ObjectMapper json = new ObjectMapper();
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            final Path jsonl = files.resolve("cost.jsonl");
            if (Files.exists(jsonl) && Files.readAllLines(jsonl).stream().anyMatch(l -> l.contains("\"span\":\"window\""))) {
                final JsonNode row = json.readTree(Files.readAllLines(jsonl).stream()
                        .filter(l -> l.contains("\"span\":\"window\"")).findFirst().orElseThrow());
                assertThat(row.get("cost_per_successful_m_usd").asDouble()).isEqualTo(cost.getCostPerSuccessfulMUsd());
                assertThat(row.get("compute_cost_per_m_usd").asDouble()).isEqualTo(cost.getComputeCostPerMUsd());
                final List<String> csv = Files.readAllLines(files.resolve("cost.csv"));
                assertThat(csv.get(0)).startsWith("contract_id,scenario_id,span,");
                assertThat(csv).anyMatch(l -> l.contains(",window,") && l.contains(cost.getCostPerSuccessfulMUsd().toString()));
                final List<String> windows = Files.readAllLines(files.resolve("window-stats.jsonl"));
                assertThat(windows).hasSize(1);
                assertThat(json.readTree(windows.get(0)).get("goodput_rps").asDouble()).isEqualTo(8.5);
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no cost rows in " + files);
    }

    private static CostRecord readWindowCost(EmbeddedKafka kafka, SchemaRegistryClient client, String topic) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "cost-reader");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, CostRecord> c = new KafkaConsumer<>(p, new StringDeserializer(),
                new AvroDeserializer<>(client, CostRecord.class))) {
            c.subscribe(List.of(topic));
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, CostRecord> r : c.poll(Duration.ofMillis(250))) {
                    if (r.value().getSpan().equals("window")) {
                        return r.value();
                    }
                }
            }
        }
        throw new AssertionError("no cost record within 60 s");
    }

    /** A PromQL instant query through Prometheus's HTTP API, retried until the series has been scraped. */
    private static double query(int port, String promql) throws Exception {
        final HttpClient http = HttpClient.newHttpClient();
        final ObjectMapper json = new ObjectMapper();
        final List<String> seen = new ArrayList<>();
        final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))).build(),
                        HttpResponse.BodyHandlers.ofString());
                seen.add(r.body());
                final JsonNode result = json.readTree(r.body()).path("data").path("result");
                if (result.size() > 0) {
                    return Double.parseDouble(result.get(0).path("value").get(1).asText());
                }
            } catch (IOException notYetUp) {
                seen.add(notYetUp.toString());
            }
            Thread.sleep(500);
        }
        throw new AssertionError("Prometheus never answered " + promql + ": " + seen.get(seen.size() - 1));
    }
}

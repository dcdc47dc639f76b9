package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.TokenEvent;
import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.capture.TimingPriority;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.contract.load.Corpus;
import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.loop.MicroClock;
import dev.goodput.proxy.ProxyServer;
import dev.goodput.records.TokenRuns;
import dev.goodput.registry.InProcessSchemaRegistry;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.report.TopicSnapshot;
import dev.goodput.serde.AvroDeserializer;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/**
 * Real traffic through the proxy on a real broker: a client's calls to the simulator land on the
 * raw topics as request and token events of the proxy's run, and when the broker stops, every
 * client still gets its whole answer while the proxy counts what it could not publish.
 */
class ProxyIT {

    private static final Path CONTRACT = Path.of("../config/contract.yaml");

    @Test
    void observedCallsLandOnTheTopicsAndABrokerOutageNeverCostsAClientItsAnswer() throws Exception {
        final Contract contract = ContractLoader.load(CONTRACT);
        final Corpus corpus = Corpus.load(ContractLoader.verifyCorpus(contract, CONTRACT.getParent()));
        try (EmbeddedKafka kafka = EmbeddedKafka.startTemporary();
             InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0);
             SimServer sim = new SimServer(SimConfig.defaults(), corpus, 0);
             StreamingClient upstreamClient = new StreamingClient(64)) {
            final Properties props = rawTopics(kafka);
            // a broker that goes away must fail sends in seconds, not minutes, for the test to end
            final Properties producer = new Properties();
            producer.putAll(props);
            producer.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "2000");
            producer.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
            producer.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "4000");
            final SchemaRegistryClient sr = new SchemaRegistryClient(registry.url());
            final URI simOrigin = URI.create(sim.baseUrl().replaceAll("/v1$", ""));
            final Target target = new Target(sim.baseUrl(), true, contract.modelName(), null, Map.of(), "sim", Duration.ofSeconds(60),
                    Duration.ofSeconds(30), false);
            final HttpClient client = HttpClient.newHttpClient();
            final KafkaEventSink sink = new KafkaEventSink(producer, sr, Topics.TOKENS.name(), Topics.REQUESTS.name(), Topics.RUNS.name(),
                    300, "proxy-run").closeWindowsAfter(Duration.ZERO);
            try (ProxyServer proxy = new ProxyServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), simOrigin,
                    upstreamClient.http(), RunIdentity.of(contract, "proxy-run", "sim"), "observed", target, sink, MicroClock.system())) {
                final String url = "http://127.0.0.1:" + proxy.address().getPort() + "/v1/chat/completions";
                for (int i = 0; i < 10; i++) {
                    assertThat(call(client, url, corpus.get(i).prompt())).endsWith("data: [DONE]\n\n");
                }
                // the proxy finishes a client's answer first and publishes the call after, on its observing
                // thread: the last call's request event may not be offered yet when the client has [DONE]
                final long offered = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (sink.requestsOffered() < 10 && System.nanoTime() < offered) {
                    Thread.sleep(10);
                }
                assertThat(sink.requestsOffered()).as("request events offered for the first ten calls").isEqualTo(10);
                assertThat(sink.flush(Duration.ofSeconds(60))).as("the first ten calls' events acknowledged").isTrue();
                final Properties consumer = new Properties();
                consumer.putAll(props);
                final List<RequestEvent> requests = TopicSnapshot.read(consumer, Topics.REQUESTS.name(),
                        new AvroDeserializer<>(sr, RequestEvent.class)).stream().filter(e -> e.getRunId().equals("proxy-run")).toList();
                assertThat(requests).hasSize(10).allMatch(e -> e.getStatus() == RequestStatus.OK && e.getScenarioId().equals("observed"));
                final List<TokenEvent> tokens = TopicSnapshot.read(consumer, Topics.TOKENS.name(),
                        new AvroDeserializer<>(sr, TokenEvent.class)).stream().filter(e -> e.getRunId().equals("proxy-run"))
                        .flatMap(t -> TokenRuns.chunks(t).stream()).toList();
                for (RequestEvent r : requests) {
                    assertThat(tokens.stream().filter(t -> t.getRequestId().equals(r.getRequestId())).count())
                            .as("token events of %s", r.getRequestId()).isEqualTo(r.getContentChunks());
                }

                // the broker goes away: answers keep coming, what cannot be published is counted
                kafka.stop();
                for (int i = 0; i < 40; i++) {
                    assertThat(call(client, url, corpus.get(i).prompt())).endsWith("data: [DONE]\n\n");
                }
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (sink.unpublished() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertThat(proxy.observed()).isEqualTo(50);
                assertThat(sink.unpublished()).as("events that could not reach the broker while it was down").isPositive();
                assertThat(sink.acked()).as("only the events of the first ten calls, at most, were acknowledged")
                        .isLessThan(sink.tokensOffered() + sink.requestsOffered());
            } finally {
                sink.close();
            }
            // closed while the broker is away: every event offered is acknowledged or counted as lost, none left uncounted
            assertThat(sink.acked() + sink.unpublished()).as("events acknowledged or counted unpublished")
                    .isEqualTo(sink.tokensOffered() + sink.requestsOffered());
        }
    }

    /**
     * {@code --observer-nice}: the proxy's own observing threads (its worker, the sink's publisher and
     * ticker, Kafka's sender), found by the names they really have, get the nice value; the thread
     * that forwards and times keeps its own; and the calls still reach the broker.
     */
    @Test
    void theObservingThreadsYieldAndTheForwardingThreadKeepsItsPriority() throws Exception {
        final Contract contract = ContractLoader.load(CONTRACT);
        final Corpus corpus = Corpus.load(ContractLoader.verifyCorpus(contract, CONTRACT.getParent()));
        try (EmbeddedKafka kafka = EmbeddedKafka.startTemporary();
             InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0);
             SimServer sim = new SimServer(SimConfig.defaults(), corpus, 0)) {
            final Properties props = rawTopics(kafka);
            final Target target = new Target(sim.baseUrl(), true, contract.modelName(), null, Map.of(), "sim", Duration.ofSeconds(60),
                    Duration.ofSeconds(30), false);
            final int own = niceOf(Path.of("/proc/thread-self/stat"));
            final int lowered = Math.min(19, own + 5);
            try (KafkaEventSink sink = new KafkaEventSink(props, new SchemaRegistryClient(registry.url()), Topics.TOKENS.name(),
                    Topics.REQUESTS.name(), Topics.RUNS.name(), 10_000, "nice-run").closeWindowsAfter(Duration.ZERO);
                 ProxyServer proxy = new ProxyServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                         URI.create(sim.baseUrl().replaceAll("/v1$", "")), null, RunIdentity.of(contract, "nice-run", "sim"), "observed",
                         target, sink, MicroClock.system(), TimingPriority.NORMAL)) {
                assertThat(proxy.lowerObservers(lowered)).startsWith("nice " + lowered + " on ");
                final Map<String, List<Integer>> nices = threadNices();
                for (String observer : List.of("goodput-proxy-o", "goodput-publish", "goodput-ticker", "kafka-producer-")) {
                    assertThat(nices.get(observer)).as(observer + " in " + nices).isNotNull().contains(lowered);
                }
                assertThat(nices.get("goodput-proxy-n")).as("the forwarding thread, in " + nices).containsOnly(own);
                final HttpClient client = HttpClient.newHttpClient();
                assertThat(call(client, "http://127.0.0.1:" + proxy.address().getPort() + "/v1/chat/completions", corpus.get(0).prompt()))
                        .endsWith("data: [DONE]\n\n");
                // upper bound on a wait for a state, not a timing assertion
                final long offered = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (sink.requestsOffered() < 1 && System.nanoTime() < offered) {
                    Thread.sleep(10);
                }
                assertThat(sink.flush(Duration.ofSeconds(60))).as("the call's events acknowledged").isTrue();
                assertThat(sink.acked()).as("events acknowledged with the observers lowered").isPositive();
            }
        }
    }

    /** This JVM's threads' nice values by the name the kernel keeps (its first 15 bytes). */
    private static Map<String, List<Integer>> threadNices() throws Exception {
        final Map<String, List<Integer>> nices = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    final String comm = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip();
                    nices.computeIfAbsent(comm, k -> new ArrayList<>()).add(niceOf(task.resolve("stat")));
                } catch (IOException ended) {
                    // a thread that ended between the listing and the read
                }
            }
        }
        return nices;
    }

    private static int niceOf(Path statFile) throws IOException {
        final String stat = Files.readString(statFile, StandardCharsets.UTF_8);
        // after the name: state is field 3; nice is field 19
        return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
    }

    private static String call(HttpClient client, String url, String prompt) throws Exception {
        final String body = "{\"model\":\"m\",\"stream\":true,\"max_tokens\":32,\"messages\":[{\"role\":\"user\",\"content\":"
                + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(prompt) + "}]}";
        final HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    /** The proxy's raw topics on the broker; the client properties that reach it. */
    private static Properties rawTopics(EmbeddedKafka kafka) {
        final Properties props = new Properties();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (var admin = kafka.admin()) {
            Topics.createMissing(admin, List.of(Topics.TOKENS, Topics.REQUESTS, Topics.RUNS), (short) 1);
        }
        return props;
    }
}

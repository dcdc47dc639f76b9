package dev.goodput.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.capture.TimingPriority;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.contract.Contract;
import dev.goodput.loop.MicroClock;
import dev.goodput.proxy.ProxyServer;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The proxy alone in a JVM, for {@code bench-proxy}: its CPU is then the proxy's (forwarding,
 * parsing, timing and publishing to the broker). Prints {@code port=<port>} when ready; runs until killed.
 * Arguments: upstream origin, bootstrap servers, schema registry URL, timing priority (auto, realtime, normal),
 * the observing threads' nice (0: left as they are).
 */
public final class ProxyMain {

    private ProxyMain() {
    }

    public static void main(String[] args) throws Exception {
        final URI upstream = URI.create(args[0]);
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
        final RunIdentity run = new RunIdentity("0".repeat(64), "bench-proxy", "sim", "sim", 1,
                new Contract.Decoding(0, 1, null, null, false), "contains", 1.0);
        final Target target = new Target(upstream + "/v1", true, "sim", null, Map.of(), "sim", Duration.ofSeconds(60),
                Duration.ofSeconds(30), false);
        // as `goodput proxy`: Jetty's client only for a TLS upstream
        final StreamingClient client = "http".equals(upstream.getScheme()) ? null : new StreamingClient(4096);
        final KafkaEventSink sink = new KafkaEventSink(props, new SchemaRegistryClient(args[2]), Topics.TOKENS.name(),
                Topics.REQUESTS.name(), Topics.RUNS.name(), 4_000_000).closeWindowsAfter(Duration.ZERO);
        final ProxyServer proxy = new ProxyServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), upstream, client == null ? null : client.http(),
                run, "observed", target, sink, MicroClock.system(), TimingPriority.parse(args.length > 3 ? args[3] : "normal"));
        System.err.println("proxy timing thread: " + proxy.timing());
        final int nice = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        if (nice > 0) {
            System.err.println("proxy observing threads: " + proxy.lowerObservers(nice));
        }
        System.out.println("port=" + proxy.address().getPort());
        System.out.flush();
        Thread.currentThread().join();
    }
}

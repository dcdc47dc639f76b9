package dev.goodput.proxy;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.capture.TimingPriority;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.capture.tokens.TokenCounter;
import dev.goodput.capture.tokens.TokenCounters;
import dev.goodput.config.Connection;
import dev.goodput.config.Durations;
import dev.goodput.config.Home;
import dev.goodput.config.ListenAddress;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.loop.MicroClock;
import dev.goodput.registry.RegistryConnection;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code goodput proxy}: a passive OpenAI-compatible reverse proxy in front of a real service. Its
 * completions calls are timed and published under the contract, as the generator's are, so the
 * pipeline judges, prices and keeps the service's real traffic; everything else passes through.
 */
@Command(name = "proxy", mixinStandardHelpOptions = true,
        description = {"Stand in front of an OpenAI-compatible service and publish its completions calls as events.",
                "Every answer goes back unchanged; the calls are published as request and token events under the contract"
                        + " (prompt and answer text are never stored)."})
public final class ProxyCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--listen", converter = ListenAddress.class, defaultValue = "127.0.0.1:8080", description = "Address clients call (default: ${DEFAULT-VALUE}).")
    InetSocketAddress listen;

    @Option(names = "--upstream", required = true, description = "The service the proxy stands for, e.g. http://127.0.0.1:8000 "
            + "(its path prefix, if any, goes before the clients' paths).")
    URI upstream;

    @Option(names = "--contract", defaultValue = Home.CONFIG + "contract.yaml", description = "Contract the traffic is judged under (default: ${DEFAULT-VALUE}).")
    Path contractFile;

    @Option(names = "--scenario", defaultValue = "observed", description = "Scenario id the observed requests carry (default: ${DEFAULT-VALUE}).")
    String scenarioId;

    @Option(names = "--run-id", description = "Run id (default: a timestamp and random suffix).")
    String runId;

    @Option(names = "--roll-every", converter = Durations.Seconds.class, defaultValue = "3600",
            description = "How long each run id lasts: calls are published under <run>-0001, <run>-0002, ... (default: ${DEFAULT-VALUE} s; 0: one run id).")
    double rollEveryS;

    @Option(names = "--ask-usage", description = "Ask the upstream for usage on streamed calls whose client did not"
            + " (stream_options.include_usage) and keep that event from the client: output tokens then come from the server."
            + " Off by default: it changes the request the upstream gets, and streams are re-cut event by event.")
    boolean askUsage;

    @Option(names = "--timeout", converter = Durations.Seconds.class, defaultValue = "600", description = "Upstream request timeout, seconds (default: ${DEFAULT-VALUE}).")
    double timeoutS;

    @Option(names = "--stall-timeout", converter = Durations.Seconds.class, defaultValue = "60", description = "Upstream silence that ends a request, seconds (default: ${DEFAULT-VALUE}).")
    double stallS;

    // on by default since the observer's queue is bounded (--observer-backlog): in bench-proxy at 1,000 streams on 2 cores
    // Goodput's TTFT p99 sat 5-59 ms above nginx's in seven runs with it, 44-103 ms in six without (docs/benchmarks.md)
    @Option(names = "--observer-nice", defaultValue = "10", description = "Nice value (1-19) for the threads that parse, build and"
            + " publish the events, so that under CPU contention forwarding goes first; 0 leaves them as the forwarding thread"
            + " (default: ${DEFAULT-VALUE}).")
    int observerNice;

    @Option(names = "--observer-backlog", defaultValue = "" + ProxyServer.DEFAULT_OBSERVER_BACKLOG, description = "Chunks and ends the observing thread may be behind"
            + " before a new completions call is forwarded unobserved and counted, never waited for (plain-HTTP upstreams;"
            + " default: ${DEFAULT-VALUE}).")
    long observerBacklog;

    @Option(names = "--max-connections", defaultValue = "4096", description = "Connections to the upstream (default: ${DEFAULT-VALUE}).")
    int maxConnections;

    // normal by default, unlike the generator's: the proxy sits in its clients' path beside the server or gateway, and
    // real-time cost it twice the CPU per chunk and half the chunks forwarded at 1,000 streams (docs/benchmarks.md)
    @Option(names = "--timing-priority", defaultValue = "normal", description = "Scheduling class of the thread that forwards and times"
            + " every byte (plain-HTTP upstreams): normal, auto (real-time where permitted, else normal, said on start) or realtime"
            + " (or refuse to start); real-time times calls closer to the wire but costs more CPU per chunk (default: ${DEFAULT-VALUE}).")
    String timingPriority;

    @Option(names = "--client-idle-timeout", converter = Durations.Seconds.class, defaultValue = "75", description = "A client's"
            + " connection that carries no bytes this long between requests, or while its request comes in, is closed (default: ${DEFAULT-VALUE} s).")
    double clientIdleS;

    @Option(names = "--publish-buffer", defaultValue = "1000000", description = "Events buffered for Kafka; beyond it events are counted as not published, never waited for (default: ${DEFAULT-VALUE}).")
    int publishBuffer;

    @Option(names = "--progress-every", converter = Durations.Seconds.class, defaultValue = "5", description = "Seconds between progress lines (default: ${DEFAULT-VALUE}).")
    double progressS;

    @CommandLine.Mixin
    Connection connection;

    @Option(names = "--producer.config", description = "Kafka producer properties file.")
    Path producerConfig;

    @Override
    public Integer call() throws Exception {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final InetSocketAddress address = listen;
        if (!"http".equals(upstream.getScheme()) && !"https".equals(upstream.getScheme())) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--upstream must be an http:// or https:// URL, got " + upstream);
        }
        if (observerBacklog < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--observer-backlog: 0 or more, was " + observerBacklog);
        }
        if (observerNice < 0 || observerNice > 19) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--observer-nice: 0 (off) to 19, was " + observerNice);
        }
        final Contract contract = ContractLoader.load(contractFile);
        final TokenCounter tokenizer;
        try {
            tokenizer = TokenCounters.forContract(contract.tokenizerName(), contractFile.toAbsolutePath().getParent(),
                    URI.create(upstream.getScheme() + "://" + upstream.getRawAuthority() + "/"), contract.modelName(), Map.of());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), contractFile + ": " + e.getMessage());
        }
        final Properties props = connection.kafka(producerConfig);
        final SchemaRegistryClient registry = RegistryConnection.open(connection, props);
        final Duration closeAfter;
        try (Admin admin = Admin.create(dev.goodput.config.ClientConfig.forAdmin(props))) {
            Topics.createMissing(admin, List.of(Topics.TOKENS, Topics.REQUESTS, Topics.RUNS), props);
            // ticks on through the last windows' grace, which a streams-app on a cluster widens by its failover allowance
            closeAfter = KafkaEventSink.DEFAULT_CLOSE_AFTER.plus(dev.goodput.config.Failover.allowance(admin));
        }
        final String run = runId != null ? runId : RunIdentity.newRunId();
        final Target target = new Target(upstream.toString(), true, contract.modelName(), null, Map.of(),
                upstream.getHost() + ":" + upstream.getPort(), Duration.ofMillis(Math.round(timeoutS * 1000)),
                Duration.ofMillis(Math.round(stallS * 1000)), false);
        final TimingPriority priority;
        try {
            priority = TimingPriority.parse(timingPriority);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--timing-priority: " + e.getMessage());
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        // Jetty's client only for a TLS upstream: a plain-HTTP one is served by the selector proxy alone, and an idle
        // client's selector and parsing threads still wake every few milliseconds (2.5 % of a core at 100 streams)
        try (StreamingClient client = "http".equals(upstream.getScheme()) ? null : new StreamingClient(maxConnections, TimingPriority.NORMAL);
             KafkaEventSink sink = new KafkaEventSink(props, registry, Topics.TOKENS.name(), Topics.REQUESTS.name(), Topics.RUNS.name(),
                     publishBuffer, run).closeWindowsAfter(closeAfter);
             ProxyServer proxy = new ProxyServer(address, upstream, client == null ? null : client.http(), RunIdentity.of(contract, run, target.targetId()),
                     scenarioId, target, sink, MicroClock.system(), priority).rollEvery(Duration.ofMillis(Math.round(rollEveryS * 1000)))
                     .askUsage(askUsage).maxConnections(maxConnections).tokenizer(tokenizer).observerBacklog(observerBacklog)
                     .clientIdleTimeout(Duration.ofMillis(Math.round(clientIdleS * 1000)))) {
            out.println(String.format(Locale.ROOT, "proxy at http://%s:%d for %s: run %s%s, scenario %s, contract %s",
                    proxy.address().getHostString(), proxy.address().getPort(), upstream, run,
                    rollEveryS > 0 ? "-0001 (rolls over every " + rollEveryS + " s)" : "", scenarioId, contract.id()));
            // said, as the generator says what its timing threads got
            out.println("timing thread: " + proxy.timing());
            if (observerNice > 0) {
                out.println("observing threads: " + proxy.lowerObservers(observerNice));
            }
            final Thread hook = new Thread(stopped::countDown, "goodput-proxy-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            final long every = Math.max(1, Math.round(progressS * 1000));
            while (!stopped.await(every, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                out.println(String.format(Locale.ROOT, "observed %d calls, passed %d through, %d not observed (observer behind);"
                        + " events acknowledged %d, not published %d", proxy.observed(), proxy.passedThrough(), proxy.unobserved(),
                        sink.acked(), sink.unpublished()));
            }
            out.println(String.format(Locale.ROOT, "stopped: observed %d calls; %d calls not observed (observer behind); %d events not"
                    + " published", proxy.observed(), proxy.unobserved(), sink.unpublished()));
            // what was seen is incomplete either way: a report over this run undercounts
            return sink.unpublished() > 0 || proxy.unobserved() > 0 ? 1 : 0;
        } catch (TimingPriority.Refused e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}

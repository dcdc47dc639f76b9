package dev.goodput.spans;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RunSummary;
import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.config.ClientConfig;
import dev.goodput.config.Connection;
import dev.goodput.config.Durations;
import dev.goodput.config.Failover;
import dev.goodput.config.Home;
import dev.goodput.config.ListenAddress;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.registry.RegistryConnection;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code goodput spans}: a passive source with nothing in the requests' path. An OTLP/HTTP receiver
 * that vLLM ({@code --otlp-traces-endpoint}), SGLang or a gateway exports its GenAI request spans to;
 * each becomes a request event under a contract of traffic observed server-side, which the
 * streams-app, sink and report judge, price and keep as any other.
 */
@Command(name = "spans", mixinStandardHelpOptions = true,
        description = {"Receive OpenTelemetry GenAI request spans (OTLP/HTTP protobuf) and publish each as a request event.",
                "Times are the server's, from each request's arrival; spans carry no per-chunk times, so ITL is not measured."})
public final class SpansCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--listen", converter = ListenAddress.class, defaultValue = "127.0.0.1:4318",
            description = "Address the OTLP exporter sends to, as a collector's OTLP/HTTP port (default: ${DEFAULT-VALUE}).")
    InetSocketAddress listen;

    @Option(names = "--contract", defaultValue = Home.CONFIG + "contract-spans.yaml",
            description = "Contract the traffic is judged under; its concurrency_pattern.arrival must be observed_server_side (default: ${DEFAULT-VALUE}).")
    Path contractFile;

    @Option(names = "--scenario", defaultValue = "spans", description = "Scenario id the requests carry (default: ${DEFAULT-VALUE}).")
    String scenarioId;

    @Option(names = "--target-id", defaultValue = "spans",
            description = "Target id when a span's resource has no service.name (default: ${DEFAULT-VALUE}).")
    String targetId;

    @Option(names = "--run-id", description = "Run id (default: a timestamp and random suffix).")
    String runId;

    @Option(names = "--duration", converter = Durations.Seconds.class,
            description = "Stop after this long (default: run until stopped).")
    Double durationS;

    @Option(names = "--close-windows-after", converter = Durations.Seconds.class,
            description = "On stop, tick the raw topics this long so the last windows close (default: 15 s, plus the failover"
                    + " allowance the streams-app adds to its grace on a cluster of several brokers).")
    Double closeAfterS;

    /** The tick-on time at the run's end: --close-windows-after, or the default with the cluster's failover allowance. */
    private Duration closeAfter;

    @Option(names = "--publish-buffer", defaultValue = "100000", description = "Events held while Kafka is slow (default: ${DEFAULT-VALUE}).")
    int publishBuffer;

    @Option(names = "--progress-interval", converter = Durations.Seconds.class, defaultValue = "5",
            description = "Time between progress lines (default: ${DEFAULT-VALUE} s).")
    double progressS;

    @CommandLine.Mixin
    Connection connection;

    @Option(names = "--producer.config", description = "Kafka producer properties file.")
    Path producerConfig;

    @Override
    public Integer call() throws Exception {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final InetSocketAddress address = listen;
        final Contract contract = ContractLoader.load(contractFile);
        if (!contract.arrival().serverSide()) {
            throw new CommandLine.ParameterException(spec.commandLine(), contractFile + ": concurrency_pattern.arrival is "
                    + contract.arrival().process() + "; spans describe traffic observed server-side: set it to "
                    + Contract.Arrival.OBSERVED_SERVER_SIDE + " (config/contract-spans.yaml is an example)");
        }
        final Properties props = connection.kafka(producerConfig);
        final SchemaRegistryClient registry = RegistryConnection.open(connection, props);
        try (Admin admin = Admin.create(ClientConfig.forAdmin(props))) {
            Topics.createMissing(admin, List.of(Topics.TOKENS, Topics.REQUESTS, Topics.RUNS, Topics.DLQ), props);
            closeAfter = closeAfterS != null ? Duration.ofMillis(Math.round(closeAfterS * 1000))
                    : KafkaEventSink.DEFAULT_CLOSE_AFTER.plus(Failover.allowance(admin));
        }
        final String run = runId != null ? runId : RunIdentity.newRunId();
        final CountDownLatch stopped = new CountDownLatch(1);
        final CountDownLatch finished = new CountDownLatch(1);
        // Ctrl-C or SIGTERM: stop taking spans, flush what was taken, tick the last windows closed, then exit
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopped.countDown();
            try {
                finished.await(120, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "goodput-spans-shutdown"));
        try {
            return serve(out, address, contract, props, registry, run, stopped);
        } finally {
            finished.countDown();
        }
    }

    private int serve(PrintStream out, InetSocketAddress address, Contract contract, Properties props,
                      SchemaRegistryClient registry, String run, CountDownLatch stopped) throws Exception {
        final KafkaEventSink sink = new KafkaEventSink(props, registry, Topics.TOKENS.name(), Topics.REQUESTS.name(),
                Topics.RUNS.name(), publishBuffer, run).closeWindowsAfter(closeAfter);
        final RefusedSpans dlq = new RefusedSpans(props, Topics.DLQ.name(), run);
        final SpanRunTally tally = new SpanRunTally();
        final OtlpTraceReceiver receiver;
        try (sink; dlq) {
            receiver = new OtlpTraceReceiver(address, RunIdentity.of(contract, run, targetId), scenarioId,
                    new OtlpTraceReceiver.Output() {
                        @Override
                        public void request(RequestEvent event) {
                            tally.add(event);
                            sink.request(event);
                        }

                        @Override
                        public void refused(SpanView span, byte[] wire, String reason, String message) {
                            dlq.send(span, wire, reason, message);
                        }
                    });
            try (receiver) {
                out.println(String.format(Locale.ROOT, "spans: OTLP/HTTP traces at http://%s:%d/v1/traces: run %s, scenario %s, contract %s",
                        receiver.address().getHostString(), receiver.address().getPort(), run, scenarioId, contract.id()));
                out.println("spans: observed server-side: TTFT and E2E from each request's arrival at the server; ITL not measured");
                final long every = Math.max(1, Math.round(progressS * 1000));
                final long until = durationS == null ? Long.MAX_VALUE : System.nanoTime() + Math.round(durationS * 1e9);
                while (System.nanoTime() < until && !stopped.await(
                        Math.max(1, Math.min(every, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()))), TimeUnit.MILLISECONDS)) {
                    out.println(progress(receiver, sink));
                }
            }
            final RunSummary summary = tally.summary(contract, run, scenarioId, targetId);
            if (summary != null) {
                sink.summary(summary);
            }
            // closing the sink (leaving this block) flushes, ticks the last windows closed and marks the run's end
        }
        out.println("stopped: " + progress(receiver, sink));
        return sink.unpublished() + dlq.failed() > 0 ? 1 : 0;
    }

    private static String progress(OtlpTraceReceiver r, KafkaEventSink sink) {
        return String.format(Locale.ROOT, "spans %d: %d request events, refused %s, %d not GenAI, %d bad exports;"
                        + " events acknowledged %d, not published %d",
                r.spans(), r.accepted(), r.refused().isEmpty() ? "0" : r.refused().toString(), r.notGenAi(), r.badExports(),
                sink.acked(), sink.unpublished());
    }
}

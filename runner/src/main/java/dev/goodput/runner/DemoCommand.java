package dev.goodput.runner;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.ServerMetricsSampler;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.capture.TargetFacts;
import dev.goodput.capture.TargetPreflight;
import dev.goodput.capture.TimingPriority;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.config.ClientConfig;
import dev.goodput.config.Connection;
import dev.goodput.config.Durations;
import dev.goodput.config.Home;
import dev.goodput.config.Redact;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.contract.load.Corpus;
import dev.goodput.definitions.SloFlags;
import dev.goodput.failure.ConnectionWatch;
import dev.goodput.generator.Generator;
import dev.goodput.generator.RunOutcome;
import dev.goodput.generator.TargetOptions;
import dev.goodput.generator.load.Matrix;
import dev.goodput.generator.load.Preparation;
import dev.goodput.generator.load.Scenario;
import dev.goodput.records.DoorChecks;
import dev.goodput.registry.RegistryConnection;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.report.DeadLetterCounts;
import dev.goodput.report.Provenance;
import dev.goodput.report.RetailPrice;
import dev.goodput.report.RunRecords;
import dev.goodput.report.ScenarioSummary;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import dev.goodput.sink.PricesFile;
import dev.goodput.sink.SinkApp;
import dev.goodput.sink.SinkConfig;
import dev.goodput.streams.StreamsApp;
import dev.goodput.streams.StreamsSettings;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code goodput demo}: a live local benchmark in one JVM. Starts the broker, the registry and the
 * topics, the simulated inference server, and the load generator running the load matrix again and
 * again; prints where everything listens; runs until Ctrl-C (or {@code --duration}). The data
 * folder is kept between runs unless {@code --fresh}, so every run stays replayable.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run a live local benchmark on an embedded broker, registry and simulator.")
final class DemoCommand implements Callable<Integer> {

    /** How long the demo waits, after its end-of-run marker, for the run's windows to be closed and priced. */
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--contract", defaultValue = Home.CONFIG + "contract.yaml", description = "Contract file (default: ${DEFAULT-VALUE}).")
    Path contractFile;

    /** With --bootstrap-server (or --command-config), the demo runs on that cluster and registry, not embedded ones. */
    @CommandLine.Mixin
    Connection connection;

    @Option(names = "--matrix", defaultValue = Home.CONFIG + "scenarios.yaml", description = "Load matrix (default: ${DEFAULT-VALUE}).")
    Path matrixFile;

    @Option(names = "--data-dir", defaultValue = ".goodput/data", description = "Broker data, kept between runs (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--fresh", description = "Delete the data folder first and start clean.")
    boolean fresh;

    @Option(names = "--kafka-port", defaultValue = "0", description = "Broker client port; 0 picks a free one.")
    int kafkaPort;

    @Option(names = "--registry-port", defaultValue = "0", description = "Schema registry port; 0 picks a free one.")
    int registryPort;

    @Option(names = "--scenario-seconds", converter = Durations.Seconds.class, description = "Measured seconds per scenario (default: the matrix's duration_s).")
    Double scenarioSeconds;

    @Option(names = "--prices", defaultValue = Home.CONFIG + "prices.yaml", description = "GPU prices to publish (default: ${DEFAULT-VALUE}).")
    Path pricesFile;

    @Option(names = "--metrics-port", defaultValue = "0", description = "Prometheus endpoint port; 0 picks a free one.")
    int metricsPort;

    /** --target drives that endpoint instead of the built-in simulator (which then stays idle). */
    @CommandLine.Mixin
    TargetOptions targetOptions;

    @Option(names = "--duration", description = "Stop by itself after this long (for example 30s, 5m); default: until Ctrl-C.",
            converter = DurationConverter.class)
    Duration duration;

    @Option(names = "--goodput", arity = "1..*", description = "SLO objectives replacing the contract's, in ms as vLLM"
            + " takes them: ttft:200 tpot:50 e2el:5000 (default: the contract's).")
    List<String> goodput;

    @CommandLine.Mixin
    SweepOptions sweep;

    @CommandLine.Mixin
    DemoLoadFlags load;

    @Option(names = "--sim-max-batch", defaultValue = "64", description = "Sequences the simulator decodes together; the rest"
            + " queue (default: ${DEFAULT-VALUE}): a smaller batch is a smaller server, whose capacity a --sweep finds.")
    int simMaxBatch;

    @Option(names = "--repeat", description = "With --duration: run the matrix again and again until then, each pass under a run"
            + " id of its own (<run>-pass2, ...); default: once, then the demo ends. Without --duration it repeats until Ctrl-C.")
    boolean repeat;

    @Option(names = "--lateness-bound-ms", defaultValue = "1", description = "Dispatch lateness p99 above which, if it is"
            + " also above 5 %% of the TTFT median, a scenario is marked generator-saturated (default: ${DEFAULT-VALUE} ms).")
    double latenessBoundMs;

    @Option(names = "--report-dir", defaultValue = ".goodput/reports", description = "Where the run's report bundle goes, in a folder named by the run id (default: ${DEFAULT-VALUE}).")
    Path reportDir;

    /** Which part stopped the run on an error, and why; null while all are well. */
    private final AtomicReference<String> failedPart = new AtomicReference<>();
    /** The points of a --sweep, as the load thread tried them. */
    private final List<DemoLoad.SweepPoint> sweepPoints = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** What the flags and files ask for, checked before anything starts. */
    private record Plan(Contract contract, Corpus corpus, Matrix matrix, Contract.Objectives objectives) {
    }

    /** Reads and checks the flags, the contract, its corpus and the load; a bad one is refused with exit 2. */
    private Plan plan() {
        if (scenarioSeconds != null && !(scenarioSeconds > 0)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--scenario-seconds " + scenarioSeconds
                    + ": must be more than 0");
        }
        if (duration != null && (duration.isZero() || duration.isNegative())) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--duration " + duration.toMillis()
                    + " ms: must be more than 0");
        }
        final Contract.Objectives objectives;
        try {
            objectives = goodput == null ? null : SloFlags.parse(goodput);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        final Contract contract = ContractLoader.load(contractFile);
        final Corpus corpus = Corpus.load(ContractLoader.verifyCorpus(contract, contractFile.toAbsolutePath().getParent()));
        final Matrix matrix;
        try {
            if (load.given() && spec.commandLine().getParseResult().hasMatchedOption("--matrix")) {
                throw new IllegalArgumentException("--matrix and the one-scenario load flags (--request-rate, --random-input-len, ...):"
                        + " give one or the other");
            }
            matrix = load.given() ? load.matrix(contract, scenarioSeconds, duration) : Matrix.load(matrixFile);
            Scenario.withinCap(matrix.scenarios(), contract.outputCapTokens());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), (load.given() ? "" : matrixFile + ": ") + e.getMessage());
        }
        try {
            DemoChecks.atStart(sweep, simMaxBatch, connection.namesCluster(), kafkaPort, registryPort, metricsPort);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        return new Plan(contract, corpus, matrix, objectives);
    }

    @Override
    public Integer call() throws InterruptedException {
        final Plan plan = plan();
        final Contract contract = plan.contract();
        final Corpus corpus = plan.corpus();
        final Matrix matrix = plan.matrix();
        final Contract.Objectives objectives = plan.objectives();
        final PrintStream out = System.out;
        final List<GpuPrice> prices = PricesFile.load(pricesFile);
        final long t0 = System.nanoTime();
        final CountDownLatch stop = new CountDownLatch(1);
        final CountDownLatch finished = new CountDownLatch(1);
        final AtomicReference<String> failedPart = this.failedPart;
        final String givenTargetarget = targetOptions.url();
        final Target givenTarget = givenTargetarget == null ? null : targetOptions.target(givenTargetarget, contract, null);
        if (givenTarget != null && !targetOptions.skipPreflight()) {
            // before anything starts: a wrong URL, key or model ends the demo in seconds, with the server's answer
            try (StreamingClient client = new StreamingClient(16)) {
                out.println(TargetPreflight.check(client, givenTarget, corpus, RunIdentity.of(contract, "preflight",
                        givenTarget.targetId())));
            }
        }
        // the contract's tokenizer: settled, or refused with the fix, before anything starts
        final Preparation givenPreparation = givenTarget == null ? null : prepare(contract, givenTarget, matrix, corpus, out);
        if (!connection.namesCluster()) {
            StartupException.requireLocalBroker("goodput demo");
        }
        // Ctrl-C: ask the run to stop, then hold the JVM open while it closes cleanly and writes its report
        final Thread hook = new Thread(() -> {
            stop.countDown();
            try {
                finished.await(120, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "goodput-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        final boolean external = connection.namesCluster();
        try (LocalCluster cluster = external ? null : LocalCluster.start(dataDir, fresh, kafkaPort, registryPort, Topics.ALL);
             SimServer sim = new SimServer(SimConfig.defaults().withCapacity(simMaxBatch, SimConfig.defaults().queueLimit()), corpus, 0)) {
            final String runId = "demo-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
            final Properties props = external ? connection.kafka(null) : Connection.kafka(null, cluster.bootstrapServers());
            final SchemaRegistryClient registry = external ? RegistryConnection.open(connection, props)
                    : new SchemaRegistryClient(cluster.registryUrl());
            if (external) {
                try (Admin admin = Admin.create(ClientConfig.forAdmin(props))) {
                    Topics.createMissing(admin, Topics.ALL, props);
                }
            }
            // where the DLQ stood at the start: what lands there from now on is this run's loss, said at its end
            final Map<Integer, Long> dlqAtStart = DeadLetterCounts.ends(props, Topics.DLQ.name());
            printHeader(out, runId, props, cluster, registry, sim.baseUrl(), givenTargetarget, contract, matrix);

            final StreamsSettings streamsConfig = LocalPipeline.settings(contract, objectives, props);
            final LocalPipeline pipeline = LocalPipeline.start(props, registry, streamsConfig, "goodput-demo",
                    dataDir.resolve("streams-state"), SinkApp.Options.of(SinkConfig.defaults(SinkConfig.peaks(List.of(contract))), prices,
                            "goodput-demo-sink", dataDir.resolve("sink-state")).metrics("127.0.0.1", metricsPort)
                    .contracts(Map.of(contract.id(), contract)).lagGroups(List.of("goodput-demo", "goodput-demo-sink")));
            final LiveTable table = new LiveTable(props, registry, Topics.WINDOW_STATS.name(), Topics.COST.name(), out);
            out.printf(Locale.ROOT, "  streams    goodput-demo: %s s windows, %s s grace, orphans held %s s; a row per closed window"
                    + " below%n", Durations.seconds(streamsConfig.window()), Durations.seconds(streamsConfig.grace()),
                    Durations.seconds(streamsConfig.orphanExpiry()));
            out.printf(Locale.ROOT, "  sink       prices from %s; metrics at %s%n", pricesFile, pipeline.sink().metrics().url());
            out.printf(Locale.ROOT, "  ready in   %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            out.println(duration == null ? "Press Ctrl-C to stop (the matrix repeats, each pass a run of its own)."
                    : (repeat ? "Repeating the matrix, each pass a run of its own;" : "Running the matrix once;")
                    + " stopping after " + duration.toSeconds() + " s at the latest.");
            out.flush();
            final Target target = givenTarget != null ? givenTarget : targetOptions.target(sim.baseUrl(), contract, "simulator");
            final Preparation preparation = givenPreparation != null ? givenPreparation
                    : prepare(contract, target, matrix, corpus, out);
            final String targetVersion = preparation.targetVersion() != null ? preparation.targetVersion()
                    : TargetFacts.version(target);
            RunOutcome outcome = null;
            // what the pipeline had not closed and priced when the demo stopped waiting for it
            String incomplete = "";
            // an external broker or registry can go away under the demo: say so, as the separate commands do
            try (ConnectionWatch watch = external
                    ? new ConnectionWatch("demo", props, registry) : null;
                 Generator generator = new Generator(new StreamingClient(1024, TimingPriority.AUTO),
                    new KafkaEventSink(props, registry, Topics.TOKENS.name(),
                            Topics.REQUESTS.name(), Topics.RUNS.name(), 1_000_000, runId)
                            .closeWindowsAfter(streamsConfig.window().plus(streamsConfig.grace())), out);
                 ServerMetricsSampler sampler = givenTarget == null ? null : targetOptions.serverMetrics(target, contract.id(),
                         runId, m -> generator.sink().serverMetrics(Topics.SERVER_METRICS.name(), m), out)) {
                outcome = generator.outcome();
                final double seconds = scenarioSeconds != null ? scenarioSeconds : matrix.durationS();
                final Thread load = new Thread(() -> {
                    if (sweep.on) {
                        DemoLoad.sweep(generator, matrix, contract, objectives, corpus, target, preparation, runId, seconds,
                                Math.round(latenessBoundMs * 1000), sweep, sweepPoints, stop, failedPart);
                    } else {
                        DemoLoad.run(generator, matrix, contract, objectives, corpus, target, preparation, runId, seconds,
                                Math.round(latenessBoundMs * 1000), repeat || duration == null, stop, failedPart);
                    }
                }, "goodput-demo-load");
                load.start();
                PipelineWatch.start(pipeline.streams(), pipeline.streamsFailures(), pipeline.sink(), stop, failedPart);
                if (duration == null) {
                    stop.await();
                } else {
                    stop.await(duration.toMillis(), TimeUnit.MILLISECONDS);
                }
                out.println("Stopping.");
                generator.stop();
                load.join(TimeUnit.SECONDS.toMillis(90));
                if (PipelineWatch.stopped(failedPart.get())) {
                    // no window the stopped part should close or price will come: the ticks would only delay the error
                    generator.sink().closeWindowsAfter(Duration.ZERO);
                    out.println("Not waiting for the run's last windows: the " + failedPart.get().split(":", 2)[0] + ".");
                } else {
                    out.printf(Locale.ROOT, "Closing the run's last windows (%s s: a window and its grace of ticks, then the"
                            + " end-of-run marker).%n", Durations.seconds(streamsConfig.window().plus(streamsConfig.grace())));
                }
                out.flush();
            } finally {
                if (failedPart.get() == null) {
                    // the end-of-run marker is out: wait for the streams-app to close the run's last windows
                    // and the sink to price them, so the report holds every measured request in a final window
                    final String missing = table.awaitSettled(outcome == null ? Set.of() : outcome.measuredScenarios(),
                            Duration.ofSeconds(3), SETTLE_TIMEOUT);
                    if (!missing.isEmpty()) {
                        out.println("WARNING: after " + Durations.seconds(SETTLE_TIMEOUT) + " s, " + missing
                                + "; the report shows what the pipeline had written by then.");
                        incomplete = missing;
                    }
                }
                table.close();
                pipeline.close();
            }
            writeReport(out, props, registry, runId, targetVersion, dlqAtStart, matrix);
            final RunOutcome ran = outcome;
            return DemoExit.status(out, failedPart.get(), dataDir, () -> ran == null ? 0 : ran.exitCode(out), incomplete);
        } finally {
            if (duration != null) {
                removeHook(hook);
            }
            finished.countDown();
        }
    }

    /** The run's first lines: what runs where. */
    private void printHeader(PrintStream out, String runId, Properties props, LocalCluster cluster, SchemaRegistryClient registry,
                             String simUrl, String givenTargetarget, Contract contract, Matrix matrix) {
        final boolean external = cluster == null;
        out.println("Goodput " + (external ? "run " : "local run ") + runId);
        out.printf(Locale.ROOT, "  contract   %s  id %s%n", contractFile, contract.id());
        if (external) {
            out.printf(Locale.ROOT, "  kafka      %s  (external cluster)%n", props.getProperty("bootstrap.servers"));
        } else {
            out.printf(Locale.ROOT, "  kafka      %s  (started in %d ms; data %s, kept between runs; --fresh starts clean)%n",
                    cluster.bootstrapServers(), cluster.kafka().lastStartTime().toMillis(), dataDir);
        }
        out.printf(Locale.ROOT, "  registry   %s%n", registry.baseUrl());
        out.printf(Locale.ROOT, givenTargetarget == null ? "  simulator  %s  (OpenAI-compatible, streaming)%n"
                : "  target     %s  (the simulator is idle)%n", givenTargetarget == null ? simUrl : Redact.withoutUserInfo(givenTargetarget));
        out.printf(Locale.ROOT, "  topics     %s%n", Topics.ALL.stream()
                .map(t -> t.name() + "(" + t.partitions() + ")").collect(Collectors.joining(" ")));
        out.printf(Locale.ROOT, "  matrix     %s: %s%n", load.given() ? "the load flags" : matrixFile,
                matrix.scenarios().stream().map(Scenario::id).collect(Collectors.joining(" ")));
    }

    /** The run's report bundle, from what the topics hold now that the pipeline has stopped. */
    private void writeReport(PrintStream out, Properties props, SchemaRegistryClient registry, String runId, String targetVersion,
                             Map<Integer, Long> dlqAtStart, Matrix matrix) {
        final RunRecords records;
        try {
            records = RunRecords.load(props, registry, runId, null, DoorChecks.maxChunks(List.of(ContractLoader.load(contractFile))));
        } catch (IllegalArgumentException e) {
            out.println("No report: the run finished no scenario (" + e.getMessage() + ").");
            return;
        }
        final Map<String, Long> dlq = DeadLetterCounts.since(props, Topics.DLQ.name(), dlqAtStart);
        final List<ScenarioSummary> summaries = ScenarioSummary.of(records);
        EndTable.print(out, summaries, records.verdicts().stream().collect(Collectors.groupingBy(RequestVerdict::getScenarioId)));
        if (sweep.on) {
            SweepReport.print(out, sweepPoints, summaries, sweep.target(), reportDir.resolve(runId));
        }
        DemoAccount.print(out, records, dlq);
        final Path page = ReportCommand.write(records.withDeadLetters(dlq), List.of(contractFile), reportDir.resolve(runId),
                Provenance.probeBroker(props), targetVersion,
                ReportCommand.commands(connection.namesCluster()
                        ? "--bootstrap-server " + props.getProperty("bootstrap.servers") + " --schema-registry " + registry.baseUrl()
                        : "--data-dir " + dataDir, runId, Main.invocation()),
                sweep.on ? List.of() : DemoAccount.notRun(matrix, records), RetailPrice.load(pricesFile), out);
        EndTable.servingFile(page.getParent(), summaries);
        out.println("Report: " + page.toAbsolutePath());
        final String where = connection.namesCluster() ? "--bootstrap-server " + props.getProperty("bootstrap.servers") : "--data-dir " + dataDir;
        EndTable.next(out, page.toAbsolutePath().toString(), where, runId);
    }

    /** How prompts are sized for the target (the contract's tokenizer), or a refusal with the fix: exit 2. */
    private Preparation prepare(Contract contract, Target target, Matrix matrix, Corpus corpus, PrintStream out) {
        try {
            return Preparation.of(contract.tokenizerName(), contractFile.toAbsolutePath().getParent(), target,
                    matrix.scenarios(), corpus, out);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), contractFile + ": " + e.getMessage());
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is already shutting down: the hook has run or is running
        }
    }
}

package dev.goodput.generator;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.ServerMetricsSampler;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.capture.TargetPreflight;
import dev.goodput.capture.TimingPriority;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.config.ClientConfig;
import dev.goodput.config.Connection;
import dev.goodput.config.Durations;
import dev.goodput.config.Failover;
import dev.goodput.config.Home;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.contract.load.Corpus;
import dev.goodput.definitions.SloFlags;
import dev.goodput.failure.ConnectionWatch;
import dev.goodput.generator.load.LoadRun;
import dev.goodput.generator.load.Matrix;
import dev.goodput.generator.load.Preparation;
import dev.goodput.generator.load.Scenario;
import dev.goodput.generator.load.Trace;
import dev.goodput.registry.RegistryConnection;
import dev.goodput.registry.SchemaRegistryClient;
import dev.goodput.simulator.SimConfig;
import dev.goodput.simulator.SimServer;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code goodput produce}: drives an OpenAI-compatible streaming endpoint (or the built-in simulator)
 * through the load matrix and publishes every chunk and request to Kafka.
 *
 * <p>Output topics: llm.tokens, llm.requests (keyed by request id), llm.runs (one summary per scenario).
 */
@Command(name = "produce", mixinStandardHelpOptions = true,
        description = "Drive an inference endpoint with the load matrix and publish per-token and per-request events.")
public final class ProduceCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    TargetOptions targetOptions;

    @Option(names = "--simulate", description = "Start the built-in simulated inference server in this process and target it.")
    boolean simulate;

    @Option(names = "--contract", defaultValue = Home.CONFIG + "contract.yaml", description = "Contract file (default: ${DEFAULT-VALUE}).")
    Path contractFile;

    @Option(names = "--matrix", description = "Load matrix file, e.g. config/scenarios.yaml: every scenario is run in turn.")
    Path matrixFile;

    @Option(names = "--scenario", description = "Scenario id(s) to run, e.g. p128-o64-r10-cold or p128-o64-c8-warm (repeatable).")
    List<String> scenarioIds = new ArrayList<>();

    @Option(names = {"--prompt-tokens", "--random-input-len", "--synthetic-input-tokens-mean", "--isl"}, defaultValue = "128",
            description = "Prompt length in tokens when no matrix or scenario is given (default: ${DEFAULT-VALUE}).")
    int promptTokens;

    @Option(names = {"--output-tokens", "--random-output-len", "--output-tokens-mean", "--osl"}, description = "Output length when no matrix or scenario is given (default: the contract's cap).")
    Integer outputTokens;

    @Option(names = {"--rate", "--request-rate"}, description = "Requests per second (open loop); default from the contract.")
    Double rate;

    @Option(names = "--concurrency", description = "Concurrent requests (closed loop: each ends, the next starts, as"
            + " AIPerf's --concurrency); default from the contract.")
    Integer concurrency;

    @Option(names = "--max-concurrency", description = "Cap on requests in flight in an open loop, as vLLM's: a request"
            + " due while the cap is reached waits for a slot and is timed from when it gets one.")
    Integer maxConcurrency;

    @Option(names = "--arrival", description = "poisson, gamma, constant, closed_loop or trace (default: the contract's).")
    String arrival;

    @Option(names = "--burstiness", description = "Gamma shape for --arrival gamma: 1 is Poisson, < 1 burstier.")
    Double burstiness;

    @Option(names = "--trace-file", description = "The trace --arrival trace replays: send offsets (seconds, one per line), an Azure LLM"
            + " inference trace (CSV), BurstGPT (CSV) or Mooncake (JSON lines); lengths and shared prefixes are honoured where it has them.")
    Path traceFile;

    @Option(names = "--continuous", description = "Run one scenario until stopped (Ctrl-C), the run id rolling over every --roll-every"
            + " (<run>-0001, <run>-0002, ...) so that each report and replay covers a bounded span.")
    boolean continuous;

    @Option(names = "--roll-every", converter = Durations.Seconds.class, defaultValue = "3600",
            description = "With --continuous: how long each run id lasts, e.g. 3600, 60m or 1h (default: ${DEFAULT-VALUE} s).")
    double rollEveryS;

    @Option(names = "--trace-format", description = "offsets, azure, burstgpt or mooncake (default: told from the file's first line).")
    String traceFormat;

    @Option(names = "--trace-speedup", defaultValue = "1", description = "Replay the trace this many times faster (default: ${DEFAULT-VALUE}).")
    double traceSpeedup;

    @Option(names = "--duration", converter = Durations.Seconds.class, description = "Measured seconds per scenario after warm-up (default: the matrix's, else 30).")
    Double durationS;

    @Option(names = {"--num-requests", "--num-prompts", "--request-count"}, description = "Requests per scenario, warm-up included (instead of a duration).")
    Long numRequests;

    @Option(names = "--warmup", converter = Durations.Seconds.class, description = "Warm-up seconds, marked on events and excluded from results (default: the contract's).")
    Double warmupS;

    @Option(names = "--ramp-up", converter = Durations.Seconds.class, defaultValue = "0", description = "Seconds over which the rate ramps up linearly.")
    double rampUpS;

    @CommandLine.Mixin
    Connection connection;


    @Option(names = "--producer.config", description = "Kafka producer properties file.")
    Path producerConfig;

    @Option(names = "--run-id", description = "Run id (default: a timestamp and random suffix). Several generators share one run by passing the same id.")
    String runId;

    @Option(names = "--generator-id", description = "This generator's id within the run (default: random).")
    String generatorId;

    @Option(names = "--lateness-bound-ms", defaultValue = "1", description = "Dispatch lateness p99 above which the run is marked generator-saturated (default: ${DEFAULT-VALUE} ms).")
    double latenessBoundMs;

    @Option(names = "--publish-buffer", defaultValue = "1000000", description = "Events buffered for Kafka before the run is failed (default: ${DEFAULT-VALUE}).")
    int publishBuffer;

    @Option(names = "--max-connections", defaultValue = "4096", description = "HTTP connections to the target (default: ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(names = "--timing-priority", defaultValue = "auto", description = "Scheduling class of the dispatcher and"
            + " HTTP selector threads: auto (real-time when permitted, else normal), realtime (or exit), normal.")
    String timingPriority;

    @Option(names = "--goodput", arity = "1..*", description = "SLO objectives for this generator's summary block, in ms"
            + " as vLLM takes them: ttft:200 tpot:50 e2el:5000 (default: the contract's). The results' verdicts are the"
            + " streams-app's (its own --goodput).")
    List<String> goodput;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the arrival process (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--close-windows-after", converter = Durations.Seconds.class,
            description = "After the last event, tick every partition this long, then publish the end-of-run marker, so"
                    + " the run's last windows close: the streams-app's window plus its grace (default: 15 s, the default 10 s"
                    + " window and 5 s grace, plus the failover allowance the streams-app adds on a cluster of several brokers;"
                    + " 0 for no wait).")
    Double closeWindowsAfterS;

    @Option(names = "--progress-interval", converter = Durations.Seconds.class, defaultValue = "5", description = "Time between progress lines (default: ${DEFAULT-VALUE} s).")
    double progressS;

    /** Every length, count and bound must make sense before anything connects: exit 2 naming the flag. */
    private void checkRanges() {
        final List<String> bad = new ArrayList<>();
        if (durationS != null && !(durationS > 0)) {
            bad.add("--duration " + durationS + " s: must be more than 0");
        }
        if (numRequests != null && numRequests <= 0) {
            bad.add("--num-requests " + numRequests + ": must be 1 or more");
        }
        if (warmupS != null && !(warmupS >= 0)) {
            bad.add("--warmup " + warmupS + " s: must be 0 or more");
        }
        if (!(rampUpS >= 0)) {
            bad.add("--ramp-up " + rampUpS + " s: must be 0 or more");
        }
        if (closeWindowsAfterS != null && !(closeWindowsAfterS >= 0)) {
            bad.add("--close-windows-after " + closeWindowsAfterS + " s: must be 0 or more");
        }
        if (!(progressS > 0)) {
            bad.add("--progress-interval " + progressS + " s: must be more than 0");
        }
        if (publishBuffer <= 0) {
            bad.add("--publish-buffer " + publishBuffer + ": must be 1 or more");
        }
        if (maxConnections <= 0) {
            bad.add("--max-connections " + maxConnections + ": must be 1 or more");
        }
        if (rate != null && rate.isInfinite()) {
            bad.add("--rate inf (vLLM: every request at once) has no equivalent here: give a rate, or --concurrency N"
                    + " for a closed loop");
        } else if (rate != null && !(rate > 0)) {
            bad.add("--rate " + rate + ": must be more than 0 requests per second");
        }
        if (maxConcurrency != null && maxConcurrency <= 0) {
            bad.add("--max-concurrency " + maxConcurrency + ": must be 1 or more");
        }
        if (maxConcurrency != null && concurrency != null) {
            bad.add("--max-concurrency caps an open loop (--rate); with --concurrency the loop is closed and holds"
                    + " exactly that many requests in flight already");
        }
        if (concurrency != null && concurrency <= 0) {
            bad.add("--concurrency " + concurrency + ": must be 1 or more");
        }
        if (!bad.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), String.join("; ", bad));
        }
    }

    @Override
    public Integer call() {
        checkRanges();
        final Contract.Objectives objectives = goodput == null ? null : checked("", () -> SloFlags.parse(goodput));
        final PrintStream out = System.out;
        final TimingPriority priority = checked("--timing-priority: ", () -> TimingPriority.parse(timingPriority));
        final Contract contract = ContractLoader.load(contractFile);
        if (arrival == null && contract.arrival().serverSide()) {
            throw new CommandLine.ParameterException(spec.commandLine(), contractFile + ": concurrency_pattern.arrival is "
                    + contract.arrival().process() + ": it describes traffic watched through spans (goodput spans), which produce"
                    + " does not generate; give --arrival poisson (or another) or a contract of generated traffic");
        }
        final Path corpusFile = ContractLoader.verifyCorpus(contract, contractFile.toAbsolutePath().getParent());
        final Corpus corpus = Corpus.load(corpusFile);
        final List<Scenario> scenarios = scenarios(contract);
        final double duration = durationS != null ? durationS
                : matrixFile != null ? Matrix.load(matrixFile).durationS() : 30;
        final String arrivalProcess = arrival != null ? arrival : contract.arrival().process();
        if ("trace".equals(arrivalProcess) && traceFile == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--arrival trace needs --trace-file");
        }
        final Trace trace;
        try {
            trace = "trace".equals(arrivalProcess)
                    ? Trace.read(traceFile, traceFormat == null ? null : Trace.Format.parse(traceFormat), traceSpeedup) : null;
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (trace != null) {
            System.out.println(trace.describe());
        }
        if (continuous && (scenarios.size() != 1 || numRequests != null || trace != null || !(rollEveryS > 0))) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--continuous runs one scenario (give one --scenario), "
                    + "without --num-requests or a trace, and --roll-every must be more than 0; got " + scenarios.size()
                    + " scenarios" + (numRequests != null ? ", --num-requests" : "") + (trace != null ? ", a trace" : "")
                    + ", --roll-every " + rollEveryS);
        }
        // a trace runs to its end unless a duration or a request count is given
        final Double runDuration = numRequests != null || trace != null && durationS == null ? null : Double.valueOf(duration);
        RunOutcome outcome = null;
        SimServer sim = null;
        StreamingClient client = null;
        try {
            if (simulate) {
                sim = new SimServer(SimConfig.defaults(), corpus, 0);
                out.println("simulator at " + sim.baseUrl());
            } else if (targetOptions.url() == null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "give --target URL or --simulate");
            }
            final Target t = targetOptions.target(sim != null ? sim.baseUrl() : targetOptions.url(), contract, null);
            client = client(priority);
            // the target first: a wrong URL, key or model is the likeliest mistake, and the quickest to say
            if (!targetOptions.skipPreflight()) {
                out.println(TargetPreflight.check(client, t, corpus, RunIdentity.of(contract, "preflight", t.targetId())));
            }
            final Preparation preparation = checked(contractFile + ": ", () -> Preparation.of(contract.tokenizerName(),
                    contractFile.toAbsolutePath().getParent(), t, trace == null ? scenarios : List.of(), corpus, out));
            final Properties props = connection.kafka(producerConfig);
            final SchemaRegistryClient registry = RegistryConnection.open(connection, props);
            // a fresh cluster may not have the raw topics yet: create them with their partitions and retention
            final Duration closeAfter;
            try (Admin admin = Admin.create(ClientConfig.forAdmin(props))) {
                Topics.createMissing(admin, List.of(Topics.TOKENS, Topics.REQUESTS, Topics.RUNS, Topics.SERVER_METRICS), props);
                // tick on through the last windows' grace, which a streams-app on this cluster widens by its failover allowance
                closeAfter = closeWindowsAfterS != null ? Duration.ofMillis(Math.round(closeWindowsAfterS * 1000))
                        : KafkaEventSink.DEFAULT_CLOSE_AFTER.plus(Failover.allowance(admin));
            }
            final String run = runId != null ? runId : RunIdentity.newRunId();
            final String gen = generatorId != null ? generatorId : Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
            out.println("run " + run + ", generator " + gen + ", contract " + contract.id() + ", target " + t.endpoint());
            final CountDownLatch finished = new CountDownLatch(1);
            Thread hook = null;
            try (ConnectionWatch watch = new ConnectionWatch("produce", props, registry);
                 Generator g = new Generator(client,
                    new KafkaEventSink(props, registry, Topics.TOKENS.name(), Topics.REQUESTS.name(), Topics.RUNS.name(),
                            publishBuffer, run).closeWindowsAfter(closeAfter), out);
                 ServerMetricsSampler sampler = targetOptions.serverMetrics(t, contract.id(), run,
                         m -> g.sink().serverMetrics(Topics.SERVER_METRICS.name(), m), out)) {
                // Ctrl-C: stop dispatching, let in-flight requests end (or be counted abandoned) and flush every event
                hook = new Thread(() -> {
                    g.stop();
                    try {
                        finished.await(120, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "goodput-produce-shutdown");
                Runtime.getRuntime().addShutdownHook(hook);
                client = null;
                outcome = g.outcome();
                final RunIdentity contractual = RunIdentity.of(contract, run, t.targetId());
                final RunIdentity identity = objectives == null ? contractual : contractual.withObjectives(objectives);
                // continuous: the one scenario again and again, each span under its own run id, warm-up only in the first
                for (int roll = 1; continuous && !g.stopped(); roll++) {
                    final String span = String.format(Locale.ROOT, "%s-%04d", run, roll);
                    out.println("run " + span + " (rolls over every " + rollEveryS + " s; Ctrl-C stops)");
                    final RunIdentity rolled = RunIdentity.of(contract, span, t.targetId());
                    g.run(new LoadRun.Settings(t, objectives == null ? rolled : rolled.withObjectives(objectives), scenarios.get(0), corpus,
                            gen, arrivalProcess, burstiness != null ? burstiness : contract.arrival().burstiness(),
                            roll == 1 ? (warmupS != null ? warmupS : contract.arrival().warmupS()) : 0, rollEveryS, null, rampUpS, null,
                            Math.round(latenessBoundMs * 1000), seed + roll, Duration.ofMillis(Math.round(progressS * 1000)),
                            maxConcurrency, preparation));
                }
                for (Scenario sc : continuous ? List.<Scenario>of() : scenarios) {
                    if (g.stopped()) {
                        break;
                    }
                    g.run(new LoadRun.Settings(t, identity, sc, corpus, gen,
                            arrivalProcess, burstiness != null ? burstiness : contract.arrival().burstiness(),
                            warmupS != null ? warmupS : contract.arrival().warmupS(),
                            runDuration, numRequests, rampUpS, trace,
                            Math.round(latenessBoundMs * 1000), seed, Duration.ofMillis(Math.round(progressS * 1000)),
                            maxConcurrency, preparation));
                }
            } finally {
                finished.countDown();
                if (hook != null) {
                    try {
                        Runtime.getRuntime().removeShutdownHook(hook);
                    } catch (IllegalStateException shuttingDown) {
                        // the hook is running: it returns now that the events are flushed
                    }
                }
            }
        } finally {
            if (client != null) {
                client.close();
            }
            if (sim != null) {
                sim.close();
            }
        }
        return outcome == null ? 0 : outcome.exitCode(out);
    }

    /** A value read from a flag or a file; a refusal ends the command with exit 2, naming it. */
    private <T> T checked(String what, Supplier<T> read) {
        try {
            return read.get();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), what + e.getMessage());
        }
    }

    private StreamingClient client(TimingPriority priority) {
        try {
            return new StreamingClient(maxConnections, priority);
        } catch (TimingPriority.Refused e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    List<Scenario> scenarios(Contract contract) {
        final List<Scenario> out = new ArrayList<>();
        try {
            if (!scenarioIds.isEmpty()) {
                scenarioIds.forEach(id -> out.add(Scenario.parse(id)));
            } else if (matrixFile != null) {
                out.addAll(Matrix.load(matrixFile).scenarios());
            } else {
                final Integer c = concurrency != null ? concurrency
                        : rate == null && "closed_loop".equals(contract.arrival().process()) ? contract.arrival().concurrency() : null;
                final Double r = c != null ? null : rate != null ? rate : contract.arrival().rateRps();
                out.add(new Scenario(promptTokens, outputTokens != null ? outputTokens : contract.outputCapTokens(), r, c,
                        contract.cacheState()));
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        checked("", () -> {
            Scenario.withinCap(out, contract.outputCapTokens());
            return out;
        });
        return out;
    }
}

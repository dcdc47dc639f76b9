package dev.goodput.generator.load;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import com.sun.management.OperatingSystemMXBean;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RunSummary;
import dev.goodput.capture.EventSink;
import dev.goodput.capture.RequestExecution;
import dev.goodput.capture.RequestSpec;
import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.Target;
import dev.goodput.capture.tokens.PromptSizer;
import dev.goodput.contract.load.Corpus;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.EngineAccount;
import dev.goodput.records.ServerCounts;
import dev.goodput.definitions.Micros;
import dev.goodput.definitions.ServingSummary;
import dev.goodput.definitions.SloFlags;
import dev.goodput.loop.MicroClock;
import org.HdrHistogram.Histogram;

/**
 * Runs one scenario: dispatches requests at their intended times, waits for them, and reports what
 * the generator itself did (its CPU, its dispatch lateness, whether it was the bottleneck). The
 * dispatcher thread only waits and starts requests; everything else happens on HTTP threads.
 */
public final class LoadRun {

    /**
     * What to run.
     *
     * @param arrival        poisson, gamma, constant, closed_loop or trace (closed_loop when the scenario has a concurrency)
     * @param durationS      seconds of measured load after warm-up, or null
     * @param numRequests    requests to send (warm-up included), or null
     * @param latenessBoundUs dispatch lateness p99 above which the run is marked generator-saturated
     * @param maxConcurrency  cap on requests in flight in an open loop (vLLM's --max-concurrency), or null
     * @param trace          the trace replayed by {@code --arrival trace} (send times, and lengths and shared prefixes
     *                       where it has them), or null
     * @param preparation    how prompts are sized (the contract's tokenizer), and what was learned of the target
     */
    public record Settings(Target target, RunIdentity identity, Scenario scenario, Corpus corpus, String generatorId,
                           String arrival, Double burstiness, double warmupS, Double durationS, Long numRequests,
                           double rampUpS, Trace trace, long latenessBoundUs, long seed, Duration progressEvery,
                           Integer maxConcurrency, Preparation preparation) {

        /** The scenario's id: a trace run is named by its trace, not by the contract's default rate. */
        public String scenarioId() {
            return trace != null ? trace.scenarioId() : scenario.id();
        }

        public Settings {
            if (durationS == null && numRequests == null && !"trace".equals(arrival)) {
                throw new IllegalArgumentException("give a duration or a number of requests");
            }
            if ("trace".equals(arrival) && trace == null) {
                throw new IllegalArgumentException("--arrival trace needs --trace-file");
            }
            if (maxConcurrency != null && (maxConcurrency < 1 || scenario.closedLoop())) {
                throw new IllegalArgumentException("--max-concurrency caps an open loop, with 1 or more");
            }
        }

        /** Prompts sized in whitespace tokens (the simulator's). */
        public Settings(Target target, RunIdentity identity, Scenario scenario, Corpus corpus, String generatorId,
                        String arrival, Double burstiness, double warmupS, Double durationS, Long numRequests,
                        double rampUpS, Trace trace, long latenessBoundUs, long seed, Duration progressEvery,
                        Integer maxConcurrency) {
            this(target, identity, scenario, corpus, generatorId, arrival, burstiness, warmupS, durationS, numRequests,
                    rampUpS, trace, latenessBoundUs, seed, progressEvery, maxConcurrency, Preparation.WHITESPACE);
        }

        /** Without a concurrency cap. */
        public Settings(Target target, RunIdentity identity, Scenario scenario, Corpus corpus, String generatorId,
                        String arrival, Double burstiness, double warmupS, Double durationS, Long numRequests,
                        double rampUpS, Trace trace, long latenessBoundUs, long seed, Duration progressEvery) {
            this(target, identity, scenario, corpus, generatorId, arrival, burstiness, warmupS, durationS, numRequests,
                    rampUpS, trace, latenessBoundUs, seed, progressEvery, null);
        }
    }

    private final Settings s;
    private final MicroClock clock;
    private final RunStats stats;
    private final Set<RequestExecution> inFlight = ConcurrentHashMap.newKeySet();
    /** Slots of the open-loop cap, or null without one. */
    private final Semaphore slots;
    /** Requests whose server-counted prompt was more than 5 % off its intended length, and one of them. */
    private final LongAdder promptsOff = new LongAdder();
    private volatile String promptOffExample;
    /** The target's build as its stream's system_fingerprint says, when nothing else said it. */
    private volatile String fingerprint;
    /** Makes request ids unique across runs of the same scenario by the same generator (the demo loops its matrix). */
    private String idPrefix;
    private RequestSpecs specs;
    /** A session scenario's turns; null for the others. */
    private SessionSchedule sessions;

    public LoadRun(Settings settings, MicroClock clock) {
        this.s = settings;
        this.clock = clock;
        this.stats = new RunStats(settings.identity().objectives());
        this.slots = settings.maxConcurrency() == null ? null : new Semaphore(settings.maxConcurrency());
    }

    /**
     * Runs the scenario to its end.
     *
     * @param failure  polled between requests: a non-null answer (the publisher failed) stops the run
     * @param tokenEvents how many token events the sink has taken, for the progress line
     */
    public RunSummary run(StreamingClient client, EventSink sink, PrintStream progress, Supplier<String> failure,
                          Supplier<Long> tokenEvents) {
        client.timingPriority().applyToCurrentThread("dispatcher");
        try {
            return dispatch(client, sink, progress, failure, tokenEvents);
        } finally {
            client.timingPriority().restoreCurrentThread();
        }
    }

    private RunSummary dispatch(StreamingClient client, EventSink sink, PrintStream progress, Supplier<String> failure,
                                Supplier<Long> tokenEvents) {
        final long cpu0 = processCpuNanos();
        final long wall0 = System.nanoTime();
        final long startUs = clock.nowMicros() + 20_000;
        idPrefix = s.generatorId() + "-" + s.scenarioId() + "-" + Long.toString(startUs / 1000, 36) + "-";
        final long warmupEndUs = startUs + Math.round(s.warmupS() * 1e6);
        final long endUs = s.durationS() != null ? warmupEndUs + Math.round(s.durationS() * 1e6) : Long.MAX_VALUE;
        specs = new RequestSpecs(s, idPrefix);
        final Schedule schedule = schedule(startUs, endUs);
        long seq = 0;
        long lastProgress = System.nanoTime();
        while (failure.get() == null) {
            final long t;
            try {
                t = schedule.next();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (t >= endUs || (s.numRequests() != null && seq >= s.numRequests()) || t == Long.MAX_VALUE) {
                if (t >= endUs && endUs != Long.MAX_VALUE) {
                    // the scenario lasts its stated time even when no send falls near its end: at 0.001 req/s
                    // it used to end at once, and the demo looped its matrix at tens of requests a second
                    waitForEnd(endUs, failure);
                }
                break;
            }
            final long seqNow = seq++;
            final SessionSchedule.Turn turn = sessions == null ? null : sessions.current();
            RequestExecution exec = execution(specs.of(seqNow, t, t < warmupEndUs, turn), sink, schedule);
            Runnable send = exec.prepare(client);
            waitUntil(t);
            if (slots != null && !slots.tryAcquire()) {
                // vLLM's semantics for its cap: the request waits for a slot and is timed from when it gets one
                if (!acquire(failure)) {
                    break;
                }
                final long sendUs = clock.nowMicros();
                exec = execution(specs.of(seqNow, sendUs, t < warmupEndUs, turn), sink, schedule);
                send = exec.prepare(client);
            }
            inFlight.add(exec);
            send.run();
            if (System.nanoTime() - lastProgress >= s.progressEvery().toNanos()) {
                lastProgress = System.nanoTime();
                progress.println(stats.progress((lastProgress - wall0) / 1e9, inFlight.size(), tokenEvents.get()));
            }
        }
        // stopped before the schedule's end (Ctrl-C, --duration, a failure): the summary says so
        final boolean stoppedEarly = failure.get() != null;
        drain(progress, wall0, tokenEvents);
        final double wallS = (System.nanoTime() - wall0) / 1e9;
        final double cpuS = (processCpuNanos() - cpu0) / 1e9;
        progress.println(stats.progress(wallS, inFlight.size(), tokenEvents.get()));
        return RunSummary.newBuilder(summary(startUs, warmupEndUs, wallS, cpuS, tokenEvents.get()))
                .setStoppedEarly(stoppedEarly).build();
    }

    private RequestExecution execution(RequestSpec spec, EventSink sink, Schedule schedule) {
        final RequestExecution[] holder = new RequestExecution[1];
        holder[0] = new RequestExecution(spec, s.identity(), s.target(), clock, sink, e -> done(holder[0], e, schedule))
                .countingWith(s.preparation().sizer().counter());
        return holder[0];
    }

    /** Waits for a slot of the cap; false when the run is stopped first. */
    private boolean acquire(Supplier<String> failure) {
        try {
            while (failure.get() == null) {
                if (slots.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    private void done(RequestExecution exec, RequestEvent e, Schedule schedule) {
        if (slots != null) {
            slots.release();
        }
        if (s.preparation().targetVersion() == null && fingerprint == null) {
            // a target that says its build nowhere else may say it in every chunk (system_fingerprint)
            fingerprint = exec.fingerprint();
        }
        final Integer template = s.preparation().chatTemplateTokens();
        // only where the server counted the prompt: a timed-out request's prompt_tokens is the generator's own size
        final Integer counted = ServerCounts.promptTokens(e);
        if (e.getIntendedPromptTokens() != null && counted != null && EngineAccount.promptOff(e.getIntendedPromptTokens(),
                template == null ? 0 : template, counted)) {
            promptOffExample = e.getIntendedPromptTokens() + " intended, " + e.getPromptTokens() + " counted by the server";
            promptsOff.increment();
        }
        inFlight.remove(exec);
        stats.record(e);
        if (sessions != null) {
            sessions.turnDone(exec.spec(), e, exec.answerText());
        }
        schedule.completed(Micros.of(e.getCompletionTimeUs()));
    }

    private void drain(PrintStream progress, long wall0, Supplier<Long> tokenEvents) {
        final long deadline = System.nanoTime() + s.target().requestTimeout().toNanos() + 1_000_000_000L;
        long lastProgress = System.nanoTime();
        while (!inFlight.isEmpty() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(5_000_000);
            if (System.nanoTime() - lastProgress >= s.progressEvery().toNanos()) {
                lastProgress = System.nanoTime();
                progress.println(stats.progress((lastProgress - wall0) / 1e9, inFlight.size(), tokenEvents.get()));
            }
        }
        for (RequestExecution e : inFlight) {
            e.abandon();
        }
        final long abandonDeadline = System.nanoTime() + 10_000_000_000L;
        while (!inFlight.isEmpty() && System.nanoTime() < abandonDeadline) {
            LockSupport.parkNanos(5_000_000);
        }
    }

    private Schedule schedule(long startUs, long endUs) {
        final Scenario sc = s.scenario();
        if (sc.sessions() != null) {
            sessions = sc.closedLoop()
                    ? SessionSchedule.closed(sc.sessions(), sc.promptTokens(), startUs, sc.concurrency(), endUs, clock::nowMicros, idPrefix)
                    : SessionSchedule.open(sc.sessions(), sc.promptTokens(), arrivals(startUs), endUs, clock::nowMicros, idPrefix);
            return sessions;
        }
        if (sc.closedLoop()) {
            return Schedule.closedLoop(startUs, sc.concurrency());
        }
        return arrivals(startUs);
    }

    /** The open loop's arrival times: of requests, or of a session scenario's sessions. */
    private Schedule arrivals(long startUs) {
        final Scenario sc = s.scenario();
        return switch (s.arrival()) {
            case "poisson" -> Schedule.poisson(startUs, sc.rateRps(), s.rampUpS(), s.seed());
            case "gamma" -> Schedule.gamma(startUs, sc.rateRps(), s.burstiness() == null ? 1.0 : s.burstiness(),
                    s.rampUpS(), s.seed());
            case "constant" -> Schedule.constant(startUs, sc.rateRps(), s.rampUpS());
            case "trace" -> Schedule.trace(startUs, s.trace());
            default -> throw new IllegalArgumentException("unknown arrival process " + s.arrival()
                    + " (poisson, gamma, constant, closed_loop, trace)");
        };
    }

    /** Waits until {@code endUs} on this clock, or until the run is stopped. */
    private void waitForEnd(long endUs, Supplier<String> failure) {
        final long target = clock.toNanoTime(endUs);
        long remaining;
        while ((remaining = target - System.nanoTime()) > 0 && failure.get() == null && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(Math.min(remaining, 50_000_000L));
        }
    }

    private void waitUntil(long intendedUs) {
        final long target = clock.toNanoTime(intendedUs);
        long remaining;
        while ((remaining = target - System.nanoTime()) > 0) {
            LockSupport.parkNanos(remaining);
        }
    }

    private RunSummary summary(long startUs, long warmupEndUs, double wallS, double cpuS, long tokenEvents) {
        final Histogram late = stats.lateness();
        final long p99 = late.getValueAtPercentile(99);
        final Histogram ttft = stats.ttft();
        final long endedUs = clock.nowMicros();
        return RunSummary.newBuilder()
                .setContractId(s.identity().contractId()).setRunId(s.identity().runId())
                .setScenarioId(s.scenarioId()).setGeneratorId(s.generatorId()).setTargetId(s.identity().targetId())
                .setArrival(s.scenario().closedLoop() ? "closed_loop" : s.arrival())
                .setRateRps(s.trace() != null ? s.trace().meanRateRps() : s.scenario().rateRps()).setConcurrency(s.scenario().concurrency())
                // a run stopped within its warm-up: the warm-up ended with it, and nothing was measured
                .setStartedUs(Micros.toInstant(startUs)).setWarmupEndUs(Micros.toInstant(Math.min(warmupEndUs, endedUs)))
                .setEndedUs(Micros.toInstant(endedUs))
                .setRequests(stats.requests()).setWarmupRequests(stats.warmup.sum())
                .setRequestsOk(stats.count(RequestStatus.OK)).setRequestsError(stats.count(RequestStatus.ERROR))
                .setRequestsTimeout(stats.count(RequestStatus.TIMEOUT))
                .setRequestsAbandoned(stats.count(RequestStatus.ABANDONED))
                .setTokenEvents(tokenEvents)
                .setLatenessP50Us(late.getValueAtPercentile(50)).setLatenessP99Us(p99)
                .setLatenessMaxUs(late.getMaxValue()).setLatenessBoundUs(s.latenessBoundUs())
                .setGeneratorSaturated(Definitions.generatorSaturated(p99, s.latenessBoundUs(),
                        ttft.getTotalCount() == 0 ? 0 : ttft.getValueAtPercentile(50)))
                .setGeneratorCpuS(cpuS).setWallS(wallS)
                .setTokenizer(s.preparation().sizer().tokenizer())
                .setChatTemplateTokens(s.preparation().chatTemplateTokens())
                .setTargetVersion(s.preparation().targetVersion() != null ? s.preparation().targetVersion() : fingerprint)
                .setPromptsOff(promptsOff.sum()).build();
    }

    /**
     * The console block of this scenario, as vLLM's bench serve prints it, from the generator's own
     * measured requests; good requests by the run's objectives and the contract's quality floor.
     */
    public ServingSummary servingSummary(RunSummary summary) {
        final double seconds = Definitions.measuredSeconds(Micros.of(summary.getWarmupEndUs()), Micros.of(summary.getEndedUs()));
        final long ok = stats.measuredOk.sum();
        final long all = ok + stats.measuredFailed.sum();
        final Map<String, String> additions = new LinkedHashMap<>();
        additions.put("Objectives", SloFlags.text(s.identity().objectives()));
        additions.put("Cost per successful 1M tokens", "priced by the sink (llm.cost, goodput report)");
        additions.put("Validity", summary.getGeneratorSaturated() ? "GENERATOR SATURATED (dispatch lateness p99 "
                + summary.getLatenessP99Us() / 1000.0 + " ms)" : "generator kept its schedule");
        return new ServingSummary("Serving Benchmark Result (vLLM's layout; Goodput's definitions, the generator's view)", ok, all - ok,
                stats.measuredGood.sum(), seconds,
                stats.measuredInputTokens.sum(),
                stats.measuredOutputTokens.sum(), stats.latency(), additions);
    }

    /**
     * A warning when the server counted prompts more than 5 % away from their intended length (the
     * contract's tokenizer is not the target's), else null.
     */
    public String promptWarning() {
        final long off = promptsOff.sum();
        return off == 0 ? null : String.format(Locale.ROOT, "WARNING: %d request(s) had prompts the server counted more than"
                + " 5 %% away from their intended length (for example %s): is the contract's tokenizer (%s) the target's?",
                off, promptOffExample, s.preparation().sizer().tokenizer());
    }

    /** This run's failed requests by error class, with an example message each. */
    public ErrorClasses errors() {
        return stats.errorClasses;
    }

    /** The run's measured requests so far, those within every latency objective and those good ({@link Attainment}). */
    public Attainment attainment() {
        return new Attainment(stats.measuredOk.sum() + stats.measuredFailed.sum(), stats.measuredSlo.sum(), stats.measuredGood.sum());
    }

    /** Requests in flight now. */
    public int inFlight() {
        return inFlight.size();
    }

    /** TTFT of this run's OK requests so far (microseconds), for reports and benchmarks. */
    public Histogram ttft() {
        return stats.ttft();
    }


    static long processCpuNanos() {
        final var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return 0;
    }
}

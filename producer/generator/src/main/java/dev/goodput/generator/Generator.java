package dev.goodput.generator;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.Function;

import dev.goodput.avro.RunSummary;
import dev.goodput.capture.StreamingClient;
import dev.goodput.capture.publish.KafkaEventSink;
import dev.goodput.generator.load.LoadRun;
import dev.goodput.loop.MicroClock;
import org.HdrHistogram.Histogram;

/**
 * A load generator process: one HTTP client and one Kafka publisher, running scenarios one after
 * another and publishing each scenario's {@link RunSummary}. Used by {@code goodput produce} and by
 * the one-command local run.
 */
public final class Generator implements AutoCloseable {

    private final StreamingClient client;
    private final KafkaEventSink sink;
    private final PrintStream out;
    private volatile boolean stopped;
    private final RunOutcome outcome = new RunOutcome();
    /** Asked while a scenario runs: a reason to end it early (a sweep's over-saturated point), or null. */
    private volatile Function<LoadRun, String> watch = r -> null;
    private volatile LoadRun last;
    private volatile boolean servingBlocks = true;

    public Generator(StreamingClient client, KafkaEventSink sink, PrintStream out) {
        this.client = client;
        this.sink = sink;
        this.out = out;
        // said once, first: whether the timings may include waits for a core
        out.println("timing threads: " + client.nio().selectorPriority());
    }

    /** From now on each scenario is also ended early when {@code w} gives a reason (checked as requests are dispatched). */
    public void watch(Function<LoadRun, String> w) {
        this.watch = w;
    }

    /**
     * Whether each scenario's end prints its block in vLLM's layout (produce, as vLLM's users expect);
     * the demo prints one table at the run's end instead, and puts the blocks in its bundle.
     */
    public void servingBlocks(boolean print) {
        this.servingBlocks = print;
    }

    /** The scenario run last (its attainment), or null. */
    public LoadRun last() {
        return last;
    }

    /** Runs one scenario to its end; throws when publishing failed (events would otherwise be lost). */
    public RunSummary run(LoadRun.Settings settings) {
        out.printf(Locale.ROOT, "scenario %s: %s for %s%n", settings.scenarioId(),
                settings.trace() != null ? settings.trace().describe()
                        : settings.scenario().closedLoop() ? "concurrency " + settings.scenario().concurrency()
                        : settings.arrival() + " at " + settings.scenario().rateRps() + " req/s",
                settings.durationS() != null ? settings.durationS() + " s after " + settings.warmupS() + " s warm-up"
                        : settings.numRequests() != null ? settings.numRequests() + " requests" : "the whole trace");
        final LoadRun run = new LoadRun(settings, MicroClock.system());
        last = run;
        final RunSummary summary = run.run(client, sink, out, () -> stopped ? "stopped"
                        : sink.failure() != null ? sink.failure() : watch.apply(run), sink::tokensOffered);
        sink.summary(summary);
        if (sink.failure() != null) {
            throw new IllegalStateException(sink.failure());
        }
        final Histogram ttft = run.ttft();
        // the percentiles leave warm-up requests out: a scenario stopped during its warm-up has none
        final String percentiles = summary.getRequests() == summary.getWarmupRequests()
                ? "all in the warm-up, so no percentiles"
                : String.format(Locale.ROOT, "TTFT p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, p99.9 %.1f ms; dispatch lateness"
                        + " p99 %.3f ms%s", ms(ttft, 50), ms(ttft, 95), ms(ttft, 99), ms(ttft, 99.9),
                        summary.getLatenessP99Us() / 1000.0, summary.getGeneratorSaturated()
                                ? " (GENERATOR SATURATED: latency may be the generator's, not the target's)" : "");
        out.printf(Locale.ROOT, "scenario %s done: %d requests (ok %d, error %d, timeout %d, abandoned %d); %s; "
                        + "generator CPU %.2f s%n",
                summary.getScenarioId(), summary.getRequests(), summary.getRequestsOk(), summary.getRequestsError(),
                summary.getRequestsTimeout(), summary.getRequestsAbandoned(), percentiles, summary.getGeneratorCpuS());
        outcome.add(summary, run.errors());
        if (run.promptWarning() != null) {
            out.println(run.promptWarning());
        }
        if (servingBlocks) {
            run.servingSummary(summary).lines().forEach(out::println);
        }
        if (summary.getRequests() > 0 && summary.getRequestsOk() == 0) {
            out.printf(Locale.ROOT, "warning: no request of %s succeeded. Top error classes:%n", summary.getScenarioId());
            run.errors().lines(RunOutcome.TOP).forEach(out::println);
        }
        return summary;
    }

    private static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }

    /** Ends the running scenario early (Ctrl-C): requests in flight finish or are abandoned. */
    public void stop() {
        stopped = true;
    }

    public boolean stopped() {
        return stopped;
    }

    /** What every scenario run so far came to. */
    public RunOutcome outcome() {
        return outcome;
    }

    public KafkaEventSink sink() {
        return sink;
    }

    @Override
    public void close() {
        sink.close();
        client.close();
    }
}

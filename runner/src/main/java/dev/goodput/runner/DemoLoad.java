package dev.goodput.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.Target;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.Corpus;
import dev.goodput.generator.Generator;
import dev.goodput.generator.load.Attainment;
import dev.goodput.generator.load.LoadRun;
import dev.goodput.generator.load.Matrix;
import dev.goodput.generator.load.Preparation;
import dev.goodput.generator.load.Scenario;
import dev.goodput.generator.sweep.SaturationWatch;
import dev.goodput.generator.sweep.SweepSearch;

/**
 * The demo's load. The matrix runs once: a second pass under the same run id used to be merged into
 * the first's scenarios, a pass cut short by --duration with them. With --repeat each later pass is
 * a run of its own.
 */
final class DemoLoad {

    private DemoLoad() {
    }

    /**
     * Runs the matrix: once, or with {@code repeat} again and again until stopped. Counts {@code stop}
     * down when the matrix has run (the demo then ends as it does at --duration), or on a failure,
     * named in {@code failedPart}.
     */
    static void run(Generator g, Matrix matrix, Contract contract, Contract.Objectives objectives, Corpus corpus, Target target,
                    Preparation preparation, String runId, double seconds, long latenessBoundUs, boolean repeat,
                    CountDownLatch stop, AtomicReference<String> failedPart) {
        try {
            g.servingBlocks(false); // one table at the end instead: the blocks go to the bundle
            // once, unless --repeat; a later pass is a run of its own, never merged into the first's scenarios
            for (int pass = 1; pass == 1 || repeat && !g.stopped(); pass++) {
                final String passRun = pass == 1 ? runId : runId + "-pass" + pass;
                if (pass > 1) {
                    System.out.println("pass " + pass + " of the matrix: run " + passRun + " (goodput report --run-id " + passRun + ")");
                }
                for (Scenario sc : matrix.scenarios()) {
                    if (g.stopped()) {
                        return;
                    }
                    final RunIdentity identity = RunIdentity.of(contract, passRun, target.targetId());
                    g.run(new LoadRun.Settings(target, objectives == null ? identity : identity.withObjectives(objectives),
                            sc, corpus,
                            "demo", contract.arrival().process(), contract.arrival().burstiness(),
                            contract.arrival().warmupS(), seconds, null, 0, null, latenessBoundUs, 1,
                            Duration.ofSeconds(5), null, preparation));
                }
            }
            // the matrix has run: the demo ends as it does at --duration
            stop.countDown();
        } catch (RuntimeException e) {
            failedPart.compareAndSet(null, "load generator stopped: " + e.getMessage());
            stop.countDown();
        }
    }

    /** One point of a sweep: its scenario, its load, what the generator measured, and whether it met the target. */
    record SweepPoint(String scenarioId, boolean closedLoop, double load, Attainment attainment, double share, boolean meets,
                      String stoppedBecause) {
    }

    /**
     * Searches the load of the matrix's first scenario for the operating point ({@link SweepSearch}):
     * each point a scenario of the run, judged as it ends by the generator's own verdicts (the
     * pipeline's come a window and a grace later, and agree: the same definitions), ended early when
     * its queue grows without bound ({@link SaturationWatch}, open loop). The points go to {@code points}.
     */
    static void sweep(Generator g, Matrix matrix, Contract contract, Contract.Objectives objectives, Corpus corpus, Target target,
                      Preparation preparation, String runId, double seconds, long latenessBoundUs, SweepOptions options,
                      List<SweepPoint> points, CountDownLatch stop, AtomicReference<String> failedPart) {
        try {
            g.servingBlocks(false);
            final SweepOptions.Target goal = options.target();
            final Scenario first = matrix.scenarios().get(0);
            final boolean closed = first.closedLoop();
            final double start = closed ? first.concurrency() : first.rateRps();
            final double cap = options.max != null ? options.max : closed ? 256 : 1000;
            final List<SweepSearch.Point> tried = new ArrayList<>();
            final RunIdentity identity = RunIdentity.of(contract, runId, target.targetId());
            System.out.println("sweep: " + (closed ? "concurrency" : "rate") + " from " + start + " up to " + cap + ", target "
                    + goal.text() + ", resolution " + SweepOptions.pct(options.resolution));
            for (double load = SweepSearch.next(tried, start, cap, options.resolution, closed); !Double.isNaN(load) && !g.stopped();
                 load = SweepSearch.next(tried, start, cap, options.resolution, closed)) {
                final Scenario sc = new Scenario(first.promptTokens(), first.outputTokens(), closed ? null : load,
                        closed ? (int) load : null, first.cache());
                Attainment a = null;
                double share = 1;
                String saturated = null;
                // each run of the point must meet the target; the point's attainment is its worst run's
                for (int run = 0; run < Math.max(1, options.repeat) && saturated == null && !g.stopped(); run++) {
                    final long measuredFrom = System.nanoTime() + Math.round(contract.arrival().warmupS() * 1e9);
                    final SaturationWatch watch = closed ? null : new SaturationWatch(() -> g.last() == null ? 0
                            : g.last().inFlight(), System::nanoTime, measuredFrom);
                    g.watch(r -> watch == null ? null : watch.check());
                    g.run(new LoadRun.Settings(target, objectives == null ? identity : identity.withObjectives(objectives), sc,
                            corpus, "demo", contract.arrival().process(), contract.arrival().burstiness(),
                            contract.arrival().warmupS(), seconds, null, 0, null, latenessBoundUs, 1, Duration.ofSeconds(5), null,
                            preparation));
                    g.watch(r -> null);
                    final Attainment ran = g.last().attainment();
                    final double s = ran.measured() == 0 ? 0 : (double) (goal.good() ? ran.good() : ran.withinObjectives())
                            / ran.measured();
                    a = a == null ? ran : a.plus(ran);
                    share = Math.min(share, s);
                    saturated = watch == null ? null : watch.check();
                    if (options.repeat > 1) {
                        System.out.printf(Locale.ROOT, "sweep point %d, run %d of %d: %s%n", tried.size() + 1, run + 1,
                                options.repeat, SweepOptions.pct(s));
                    }
                }
                if (a == null) {
                    break; // stopped before the point ran
                }
                final boolean meets = saturated == null && a.measured() > 0 && share >= goal.share();
                tried.add(new SweepSearch.Point(load, meets));
                points.add(new SweepPoint(sc.id(), closed, load, a, share, meets, saturated));
                System.out.printf(Locale.ROOT, "sweep point %d: %s: %d measured, %s %s: %s%s%n", tried.size(), sc.id(), a.measured(),
                        SweepOptions.pct(share), goal.good() ? "good" : "within the objectives", meets ? "meets" : "fails",
                        saturated == null ? "" : " (" + saturated + ", ended early)");
            }
            stop.countDown();
        } catch (RuntimeException e) {
            failedPart.compareAndSet(null, "load generator stopped: " + e.getMessage());
            stop.countDown();
        }
    }
}

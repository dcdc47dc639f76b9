package dev.goodput.runner;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import dev.goodput.capture.RunIdentity;
import dev.goodput.capture.Target;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.Corpus;
import dev.goodput.generator.Generator;
import dev.goodput.generator.load.LoadRun;
import dev.goodput.generator.load.Matrix;
import dev.goodput.generator.load.Preparation;
import dev.goodput.generator.load.Scenario;

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
}

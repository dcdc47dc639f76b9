package dev.goodput.runner;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.function.IntSupplier;

/**
 * The demo's exit status once its report is written, with the last lines that say why: a part of the
 * pipeline that failed comes first (its own error, then how to start clean), then a run in which no
 * request succeeded (the generator's outcome prints its top error classes), then a report short of
 * measured requests (a window the pipeline had not closed and priced when the demo stopped waiting).
 * Any of them is exit 1: a report that is not a result must not pass a script's check.
 */
final class DemoExit {

    private DemoExit() {
    }

    /**
     * @param failedPart   the part that failed, as {@code PipelineWatch} and the load thread name it, or null
     * @param dataDir      the demo's data directory (a stale one is the usual cause of a failed part)
     * @param outcome      the generator's exit code, printing why when it is not 0
     * @param incomplete   what the report lacks, empty when it is complete
     */
    static int status(PrintStream out, String failedPart, Path dataDir, IntSupplier outcome, String incomplete) {
        try {
            if (failedPart != null) {
                out.println("The " + failedPart + (failedPart.startsWith("load generator") ? "."
                        : ". If " + dataDir + " was written by an older Goodput, start clean with --fresh."));
                return Main.EXIT_FAILED;
            }
            out.println("Stopped.");
            if (outcome.getAsInt() != 0) {
                return Main.EXIT_FAILED;
            }
            if (!incomplete.isEmpty()) {
                out.println("FAILED: the report is incomplete: " + incomplete + ".");
                return Main.EXIT_FAILED;
            }
            return 0;
        } finally {
            out.flush();
        }
    }
}

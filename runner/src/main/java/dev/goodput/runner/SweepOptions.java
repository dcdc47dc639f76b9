package dev.goodput.runner;

import java.util.Locale;

import picocli.CommandLine.Option;

/**
 * The demo's search for an operating point ({@code --sweep}): the highest load of the matrix's first
 * scenario (its lengths and cache; open loop by rate, closed loop by concurrency) whose attainment
 * meets the target, each point a scenario of the run like any other (replayable, in the report).
 */
public final class SweepOptions {

    @Option(names = "--sweep", description = "Search the load for the operating point: the highest rate (or concurrency) of the"
            + " matrix's first scenario whose attainment meets --sweep-target, then its cost per successful 1M tokens.")
    boolean on;

    @Option(names = "--sweep-target", defaultValue = "slo:0.99", description = "Attainment to meet: slo:F (that share of requests"
            + " within every latency objective, MLPerf Server's question) or good:F (within them and the quality floor)"
            + " (default: ${DEFAULT-VALUE}).")
    String target;

    @Option(names = "--sweep-resolution", defaultValue = "0.1", description = "Stop when the highest load meeting the target and"
            + " the lowest failing it are this close, relative (default: ${DEFAULT-VALUE}).")
    double resolution;

    @Option(names = "--sweep-max", description = "The highest load tried (default: 1000 req/s, or 256 concurrent requests).")
    Double max;

    @Option(names = "--sweep-repeat", defaultValue = "1", description = "Runs of each point: it meets the target only when every"
            + " run does, and its figures (goodput, cost) are over all its runs (default: ${DEFAULT-VALUE}).")
    int repeat;

    /** The attainment a point must reach: a share of measured requests within the objectives, or good. */
    record Target(boolean good, double share) {
        String text() {
            return String.format(Locale.ROOT, "%s of requests %s", pct(share), good ? "good (objectives and quality floor)"
                    : "within every latency objective");
        }
    }

    /** The target as given; a malformed one is refused at start with the syntax. */
    Target target() {
        final String[] kv = target.split(":", 2);
        try {
            final double share = Double.parseDouble(kv[1]);
            if ((kv[0].equals("slo") || kv[0].equals("good")) && share > 0 && share <= 1) {
                return new Target(kv[0].equals("good"), share);
            }
        } catch (RuntimeException malformed) {
            // said below
        }
        throw new IllegalArgumentException("--sweep-target " + target + ": give slo:F or good:F with F in (0, 1], for example slo:0.99");
    }

    static String pct(double share) {
        return String.format(Locale.ROOT, "%.1f %%", share * 100);
    }
}

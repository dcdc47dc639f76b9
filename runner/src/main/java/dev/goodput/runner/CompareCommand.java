package dev.goodput.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import dev.goodput.report.Comparison;
import dev.goodput.report.ContractDiff;
import dev.goodput.report.SweepComparison;
import dev.goodput.report.SweepResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code goodput compare A B}: two results side by side (report bundles, or a peer's result file as
 * either side), with their contracts' differences listed field by field and a warning when one
 * makes the comparison unfair; two sweeps are also compared at their operating points.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Compare two results: goodput, cost per successful 1M, quality, latency; contract differences.",
                "Either side may be a report bundle or a peer's result file: a vLLM bench serve --save-result JSON, an AIPerf "
                        + "profile_export_aiperf.json, a GuideLLM benchmarks.json or an inference-perf summary_lifecycle_metrics.json "
                        + "(figures it cannot give are named)."})
final class CompareCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", description = "Result A: a report bundle folder (written by goodput report or goodput demo) or a peer's result file.")
    Path a;

    @Parameters(index = "1", description = "Result B, likewise.")
    Path b;

    @Option(names = "--scenario", paramLabel = "ID",
            description = "Compare this scenario of each side that has several, instead of the whole run (for a peer file that holds one run).")
    String scenario;

    @Option(names = "--out", description = "Also write compare.html there.")
    Path out;

    @Option(names = "--fail-if-unfair", description = "Exit 1 when the contracts differ in a field that makes the comparison unfair.")
    boolean failIfUnfair;

    @Option(names = "--allow-unfair", description = "Name the cheaper of two sweeps' operating points even when they were judged"
            + " differently (objectives, target, corpus, model).")
    boolean allowUnfair;

    @Override
    public Integer call() throws IOException {
        final Comparison c;
        try {
            c = Comparison.of(a, b, scenario);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        System.out.print(c.text());
        final SweepResult sa = SweepResult.read(a);
        final SweepResult sb = SweepResult.read(b);
        if (sa != null && sb != null) {
            System.out.print(SweepComparison.of(sa, sb, c.differences().stream().filter(ContractDiff.Difference::unfair)
                    .map(d -> d.field() + " differs (" + d.why() + ")").toList(), allowUnfair).text());
        } else if (sa != null || sb != null) {
            System.out.println("NOTE: only " + (sa != null ? "A" : "B") + " is a sweep: no operating points to compare.");
        }
        if (out != null) {
            Files.createDirectories(out);
            Files.writeString(out.resolve("compare.html"), c.html(), StandardCharsets.UTF_8);
            System.out.println("compare: " + out.resolve("compare.html").toAbsolutePath());
        }
        return failIfUnfair && c.unfair() ? Main.EXIT_FAILED : 0;
    }
}

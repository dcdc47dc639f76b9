package dev.goodput.runner;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import dev.goodput.config.Connection;
import dev.goodput.config.Home;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.records.DoorChecks;
import dev.goodput.report.Bundle;
import dev.goodput.report.Provenance;
import dev.goodput.report.Report;
import dev.goodput.report.RetailPrice;
import dev.goodput.report.RunRecords;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code goodput report}: the report bundle of a run (or of a replay of it), read back from the
 * topics: a folder with the page, the raw per-request results, percentiles, failures, quality,
 * cost, assumptions and provenance.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Write the report bundle (HTML page with charts, CSV/JSON results, assumptions, provenance) of a run.")
final class ReportCommand implements Callable<Integer> {

    @Mixin
    Connection connection;

    @Option(names = "--data-dir", description = "Report on a kept local run: start the embedded broker and registry on this data folder.")
    Path dataDir;

    @Option(names = "--run-id", description = "The run (default: the run that ended last).")
    String runId;

    @Option(names = "--replay-id", description = "Report the results of this replay (llm.*.<id>) instead of the live ones.")
    String replayId;

    @Option(names = "--contract", description = "Contract file(s); the one whose id the run carries is used (default config/contract.yaml).")
    List<Path> contracts = new ArrayList<>();

    @Option(names = "--out", description = "Bundle folder (default: .goodput/reports/<run id>[-<replay id>]).")
    Path out;

    @Option(names = "--target-version", description = "The target server's version, when the report cannot ask it.")
    String targetVersion;

    @Option(names = "--prices", description = "Prices file whose retail list (per 1M input, cached input and output tokens) the run's"
            + " good tokens are also priced at (default config/prices.yaml; a replay's GPU prices are replay --prices').")
    Path prices;

    @Override
    public Integer call() {
        try (ReadTarget at = ReadTarget.open(dataDir, connection, null)) {
            final RunRecords run;
            try {
                run = RunRecords.load(at.client(), at.registry(), runId, replayId, maxChunks(contractFiles(contracts)));
            } catch (IllegalArgumentException | IllegalStateException e) {
                // no such run: a plain sentence, not a stack of exception names
                throw new StartupException(e.getMessage(), Main.EXIT_FAILED, e);
            }
            final Path page = write(run, contractFiles(contracts), out, Provenance.probeBroker(at.client()),
                    targetVersion, commands(at.flags(), run.runId(), Main.invocation()), List.of(),
                    retail(), System.out);
            System.out.println("report: " + page.toAbsolutePath());
            return 0;
        }
    }

    /** The retail prices to compare with: the given file's, else the shipped file's when there is one. */
    private List<RetailPrice> retail() {
        if (prices != null) {
            return RetailPrice.load(prices);
        }
        final Path shipped = Home.config("prices.yaml");
        return Files.isRegularFile(shipped) ? RetailPrice.load(shipped) : List.of();
    }

    /**
     * The streams-app's door checks' chunk bound, from the same contracts' output caps. A contract
     * that cannot be read leaves only negative counts refused here: the bundle then names the file
     * and its problem, after a missing run has been said.
     */
    static int maxChunks(List<Path> contractFiles) {
        try {
            return DoorChecks.maxChunks(contractFiles.stream().map(ContractLoader::load).toList());
        } catch (RuntimeException unreadable) {
            return DoorChecks.NO_CAP;
        }
    }

    static List<Path> contractFiles(List<Path> given) {
        return given.isEmpty() ? List.of(Home.config("contract.yaml")) : given;
    }

    /** The commands that made, report and recompute a run, for its provenance. */
    static Map<String, String> commands(String where, String runId, String invocation) {
        final Map<String, String> c = new LinkedHashMap<>();
        if (invocation != null) {
            c.put("this run or report", invocation);
        }
        c.put("report again", "./goodput report " + where + " --run-id " + runId);
        c.put("recompute from the raw topics", "./goodput replay " + where + " --run-id " + runId
                + " --replay-id check --prices config/prices.yaml && ./goodput report " + where + " --run-id " + runId
                + " --replay-id check");
        return c;
    }

    /** Writes the bundle of an already read run and returns its page. */
    static Path write(RunRecords run, List<Path> contractFiles, Path outDir, String kafkaBroker, String targetVersion,
                      Map<String, String> commands, PrintStream log) {
        return write(run, contractFiles, outDir, kafkaBroker, targetVersion, commands, List.of(), List.of(), log);
    }

    /**
     * The same, naming the scenarios the run planned and never started, and comparing its good
     * tokens with the retail prices given.
     */
    static Path write(RunRecords run, List<Path> contractFiles, Path outDir, String kafkaBroker, String targetVersion,
                      Map<String, String> commands, List<String> notRun, List<RetailPrice> retail, PrintStream log) {
        final String wanted = run.runs().get(0).getContractId();
        Path file = null;
        Contract contract = null;
        for (Path p : contractFiles) {
            final Contract c = ContractLoader.load(p);
            if (c.id().equals(wanted)) {
                file = p;
                contract = c;
            }
        }
        if (contract == null) {
            throw new StartupException("run " + run.runId() + " ran under contract " + wanted + "; none of " + contractFiles
                    + " has that id (pass the run's contract with --contract <file>)", Main.EXIT_REFUSED, null);
        }
        final String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        final Path dir = outDir != null ? outDir
                : Path.of(".goodput", "reports", run.runId() + (run.replayId() == null ? "" : "-" + run.replayId()));
        run.incompleteScenarios().forEach(s -> log.println("Scenario " + s + " is incomplete: its generator left no run summary "
                + "(stopped mid-scenario); its figures come from its request events, and it has no rate, lateness or CPU figures."));
        run.skipped().forEach((where, n) -> log.println("Skipped " + n + " record(s) that cannot be read on " + where
                + "; the streams-app sent them to the DLQ; the bundle's manifest.json lists them under skipped_records."));
        if (!run.deadLetters().isEmpty()) {
            log.println("Refused to the DLQ during the run: " + run.deadLetters().entrySet().stream()
                    .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "))
                    + " (manifest.json: dead_letters_by_reason).");
        }
        if (!run.refused().isEmpty()) {
            log.println("Left out by the door checks (as the streams-app refuses them): " + run.refused().entrySet().stream()
                    .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "))
                    + " (manifest.json: refused_at_the_door).");
        }
        if (run.generatorsCounted() != run.measuredRequests()) {
            log.println("WARNING: the generators' run summaries count " + run.generatorsCounted() + " measured requests; "
                    + run.measuredRequests() + " request events of the run reached the topic and passed the door checks.");
        }
        final long foreign = run.foreignRequestsInWindows();
        if (foreign > 0) {
            log.println("WARNING: " + foreign + " request(s) of other runs completed in this run's windows (the same contract and"
                    + " scenario at the same time): the window figures include them; requests.csv and the per-request files do not.");
        }
        if (run.measuredRequests() != run.verdicts().size()) {
            log.println("WARNING: the run has " + run.measuredRequests() + " measured requests; the results hold "
                    + run.verdicts().size() + " verdicts.");
        }
        if (!notRun.isEmpty()) {
            log.println("Scenarios never run (the run ended before they started): " + String.join(", ", notRun) + ".");
        }
        return Bundle.write(dir, Report.of(run, contract, text, Provenance.here(kafkaBroker, targetVersion, commands, notRun))
                .withRetail(retail));
    }
}

package dev.goodput.bench;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import dev.goodput.config.Home;
import dev.goodput.contract.load.ContractLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code goodput bench-streams}: the streams-app's rate against the raw consumer, its heap, and its final-record delay. */
@Command(name = "bench-streams", mixinStandardHelpOptions = true,
        description = "Benchmark the streams-app (broker and app in child JVMs); prints figures.")
public final class BenchStreamsCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--contract", defaultValue = Home.CONFIG + "contract.yaml")
    Path contract;

    @Option(names = "--requests", defaultValue = "1000000", description = "Requests for the rate phase (default: ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--chunks", defaultValue = "50", description = "Token events per request in the rate phase.")
    int chunks;

    @Option(names = "--heap-requests", defaultValue = "10000000", description = "Requests for the heap phase; 0 skips it.")
    int heapRequests;

    @Option(names = "--live-seconds", defaultValue = "40", description = "Seconds of live load for the delay phase; 0 skips it.")
    double liveSeconds;

    @Option(names = "--run-ms", defaultValue = "500", description = "Milliseconds of a request's chunks in one run on the"
            + " streams-app's topic (default: ${DEFAULT-VALUE}, the generator's sink's interval).")
    long runMs;

    @Option(names = "--rate-heap", defaultValue = "2g", description = "Fixed heap of both apps in the rate phase, as -Xmx"
            + " takes it (default: ${DEFAULT-VALUE}, the launcher's; the heap and delay phases use 512m).")
    String rateHeap;

    @Option(names = "--record", paramLabel = "FILE", description = "CSV file the rate phase's figures are appended to as a row"
            + " (default: docs/benchmarks/bench-streams.csv in the checkout; none: no record).")
    String record;

    @Option(names = "--repeat", defaultValue = "3", description = "Cycles of the rate phase in one sitting, each the readers"
            + " alternated and a row of its own; the medians of their ratios at the end (default: ${DEFAULT-VALUE}).")
    int repeat;

    @Override
    public Integer call() throws Exception {
        if (!rateHeap.matches("[0-9]+[kKmMgG]?")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--rate-heap " + rateHeap
                    + ": a size as -Xmx takes it, such as 512m or 2g");
        }
        if (repeat < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--repeat " + repeat + ": 1 or more");
        }
        if (runMs < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--run-ms " + runMs + ": 1 or more");
        }
        final StreamsBenchmark b = new StreamsBenchmark(System.out, ContractLoader.load(contract), contract, requests, chunks,
                heapRequests, liveSeconds, rateHeap, runMs);
        b.data = BenchData.of(record, "bench-streams");
        b.repeat = repeat;
        b.run();
        return 0;
    }
}

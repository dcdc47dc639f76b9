package dev.goodput.bench;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import dev.goodput.config.Home;
import dev.goodput.contract.load.ContractLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code goodput bench-streams}: the streams-app's rate against the raw consumer, its heap, and its final-record delay. */
@Command(name = "bench-streams", mixinStandardHelpOptions = true,
        description = "Benchmark the streams-app (broker and app in child JVMs); prints figures.")
public final class BenchStreamsCommand implements Callable<Integer> {

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

    @Override
    public Integer call() throws Exception {
        new StreamsBenchmark(System.out, ContractLoader.load(contract), contract, requests, chunks, heapRequests, liveSeconds)
                .run();
        return 0;
    }
}

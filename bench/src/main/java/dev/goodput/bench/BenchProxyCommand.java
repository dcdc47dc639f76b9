package dev.goodput.bench;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code goodput bench-proxy}: the TTFT the proxy adds against nginx's, and the CPU each spends per chunk. */
@Command(name = "bench-proxy", mixinStandardHelpOptions = true,
        description = {"Benchmark the proxy against direct calls to the simulator and against nginx in front of it (proxy_buffering off,"
                + " HTTP/1.1 keep-alive upstream), at 100 and 1,000 streams; prints the three paths side by side and the ratios.",
                "Needs Debian's nginx (apt-get install nginx-light)."})
public final class BenchProxyCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    GeneratorOptions options;

    @CommandLine.Option(names = "--proxy-timing-priority", defaultValue = "normal", description = "The proxy's selector thread:"
            + " normal, auto or realtime (default: ${DEFAULT-VALUE}, as `goodput proxy`'s).")
    String proxyPriority;

    @CommandLine.Option(names = "--streams", split = ",", defaultValue = "100,1000", description = "Concurrencies to measure"
            + " (default: ${DEFAULT-VALUE}); the fast-stream phase runs with 1000.")
    int[] streams;

    @CommandLine.Option(names = "--rounds", defaultValue = "3", description = "Rounds per concurrency: each path measured --seconds"
            + " per round, the three taking turns, the rounds merged (default: ${DEFAULT-VALUE}).")
    int rounds;

    @CommandLine.Option(names = "--proxy-observer-nice", defaultValue = "10", description = "The proxy's --observer-nice"
            + " (default: ${DEFAULT-VALUE}, as `goodput proxy`'s).")
    int observerNice;

    @CommandLine.Option(names = "--record", paramLabel = "FILE", description = "CSV file each phase's figures are appended to as a row"
            + " (default: docs/benchmarks/bench-proxy.csv in the checkout; none: no record).")
    String record;

    @Override
    public Integer call() throws Exception {
        final dev.goodput.capture.TimingPriority generator = options.priority(spec);
        final dev.goodput.capture.TimingPriority proxy;
        try {
            proxy = dev.goodput.capture.TimingPriority.parse(proxyPriority);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--proxy-timing-priority: " + e.getMessage());
        }
        if (rounds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--rounds: at least 1, was " + rounds);
        }
        for (int s : streams) {
            if (s < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--streams: each at least 1, was " + s);
            }
        }
        if (observerNice < 0 || observerNice > 19) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--proxy-observer-nice: 0 (off) to 19, was " + observerNice);
        }
        final ProxyBenchmark b = new ProxyBenchmark(System.out, options.corpus, options.seconds, generator, proxy, streams, rounds,
                observerNice);
        b.data = BenchData.of(record, "bench-proxy");
        b.run();
        return 0;
    }
}

package dev.goodput.bench;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code goodput bench-proxy}: the TTFT the proxy adds, and the chunks it forwards per core. */
@Command(name = "bench-proxy", mixinStandardHelpOptions = true,
        description = "Benchmark the proxy against direct calls to the simulator, at 100 and 1,000 streams; prints figures.")
public final class BenchProxyCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    GeneratorOptions options;

    @Override
    public Integer call() throws Exception {
        new ProxyBenchmark(System.out, options.corpus, options.seconds, options.priority(spec)).run();
        return 0;
    }
}

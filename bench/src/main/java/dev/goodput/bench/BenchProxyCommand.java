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

    @Override
    public Integer call() throws Exception {
        final dev.goodput.capture.TimingPriority generator = options.priority(spec);
        final dev.goodput.capture.TimingPriority proxy;
        try {
            proxy = dev.goodput.capture.TimingPriority.parse(proxyPriority);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--proxy-timing-priority: " + e.getMessage());
        }
        new ProxyBenchmark(System.out, options.corpus, options.seconds, generator, proxy).run();
        return 0;
    }
}

package dev.goodput.bench;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import dev.goodput.config.Home;
import dev.goodput.producer.client.TimingPriority;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code goodput bench-proxy}: the TTFT the proxy adds, and the chunks it forwards per core. */
@Command(name = "bench-proxy", mixinStandardHelpOptions = true,
        description = "Benchmark the proxy against direct calls to the simulator, at 100 and 1,000 streams; prints figures.")
public final class BenchProxyCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--corpus", defaultValue = Home.CONFIG + "corpus/prompts.jsonl", description = "Prompt corpus (default: ${DEFAULT-VALUE}).")
    Path corpus;

    @Option(names = "--seconds", defaultValue = "20", description = "Seconds per measured phase (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--timing-priority", defaultValue = "auto", description = "auto, realtime or normal: the load generator's"
            + " timing threads (default: ${DEFAULT-VALUE}).")
    String timingPriority;

    @Override
    public Integer call() throws Exception {
        final TimingPriority priority;
        try {
            priority = TimingPriority.parse(timingPriority);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--timing-priority: " + e.getMessage());
        }
        new ProxyBenchmark(System.out, corpus, seconds, priority).run();
        return 0;
    }
}

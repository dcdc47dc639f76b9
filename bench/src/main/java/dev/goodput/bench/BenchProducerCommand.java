package dev.goodput.bench;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import dev.goodput.config.Home;
import dev.goodput.producer.client.TimingPriority;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code goodput bench-producer}: the load generator's own timing error, lateness and throughput. */
@Command(name = "bench-producer", mixinStandardHelpOptions = true,
        description = "Benchmark the load generator against the simulator and a broker in child JVMs; prints figures.")
public final class BenchProducerCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--corpus", defaultValue = Home.CONFIG + "corpus/prompts.jsonl", description = "Prompt corpus (default: ${DEFAULT-VALUE}).")
    Path corpus;

    @Option(names = "--seconds", defaultValue = "20", description = "Seconds per measured phase (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--phases", defaultValue = "all", description = "all, or a comma list of streams, lateness, throughput.")
    String phases;

    @Option(names = "--timing-priority", defaultValue = "auto", description = "auto, realtime or normal: the generator's"
            + " timing threads, as in produce (default: ${DEFAULT-VALUE}).")
    String timingPriority;

    @Override
    public Integer call() throws Exception {
        final TimingPriority priority;
        try {
            priority = TimingPriority.parse(timingPriority);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--timing-priority: " + e.getMessage());
        }
        new ProducerBenchmark(System.out, corpus, seconds, phases, priority).run();
        return 0;
    }
}

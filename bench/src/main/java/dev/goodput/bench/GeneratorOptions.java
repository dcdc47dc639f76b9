package dev.goodput.bench;

import java.nio.file.Path;

import dev.goodput.capture.TimingPriority;
import dev.goodput.config.Home;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** The options of the benchmarks that drive the simulator with the load generator: corpus, phase length, timing threads. */
final class GeneratorOptions {

    @Option(names = "--corpus", defaultValue = Home.CONFIG + "corpus/prompts.jsonl", description = "Prompt corpus (default: ${DEFAULT-VALUE}).")
    Path corpus;

    @Option(names = "--seconds", defaultValue = "20", description = "Seconds per measured phase (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--timing-priority", defaultValue = "auto", description = "auto, realtime or normal: the generator's"
            + " timing threads, as in produce (default: ${DEFAULT-VALUE}).")
    String timingPriority;

    /** The timing threads asked for, or a usage error naming the flag. */
    TimingPriority priority(CommandLine.Model.CommandSpec spec) {
        try {
            return TimingPriority.parse(timingPriority);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--timing-priority: " + e.getMessage());
        }
    }
}

package dev.goodput.bench;

import java.util.concurrent.Callable;

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

    @CommandLine.Mixin
    GeneratorOptions options;

    @Option(names = "--phases", defaultValue = "all", description = "all, or a comma list of streams, lateness, throughput.")
    String phases;

    @Option(names = "--record", paramLabel = "FILE", description = "CSV file each phase's figures are appended to as a row"
            + " (default: docs/benchmarks/bench-producer.csv in the checkout; none: no record).")
    String record;

    @Override
    public Integer call() throws Exception {
        final ProducerBenchmark b = new ProducerBenchmark(System.out, options.corpus, options.seconds, phases, options.priority(spec));
        b.data = BenchData.of(record, "bench-producer");
        b.run();
        return 0;
    }
}

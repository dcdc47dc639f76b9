package dev.goodput.runner;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.goodput.contract.Contract;
import dev.goodput.contract.ContractLoader;
import dev.goodput.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code goodput demo}: a live local benchmark in one JVM. Starts the broker, the registry and the
 * topics, then every pipeline stage that exists, prints where everything listens, and runs until
 * Ctrl-C (or {@code --duration}). The data folder is kept between runs unless {@code --fresh}.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run a live local benchmark on an embedded broker, registry and simulator.")
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--contract", defaultValue = "config/contract.yaml", description = "Contract file (default: ${DEFAULT-VALUE}).")
    Path contractFile;

    @Option(names = "--data-dir", defaultValue = ".goodput/data", description = "Broker data, kept between runs (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--fresh", description = "Delete the data folder first and start clean.")
    boolean fresh;

    @Option(names = "--kafka-port", defaultValue = "0", description = "Broker client port; 0 picks a free one.")
    int kafkaPort;

    @Option(names = "--registry-port", defaultValue = "0", description = "Schema registry port; 0 picks a free one.")
    int registryPort;

    @Option(names = "--duration", description = "Stop by itself after this long (for example 30s, 5m); default: until Ctrl-C.",
            converter = DurationConverter.class)
    Duration duration;

    @Override
    public Integer call() throws InterruptedException {
        final PrintStream out = System.out;
        final Contract contract = ContractLoader.load(contractFile);
        ContractLoader.verifyCorpus(contract, contractFile.toAbsolutePath().getParent());
        final long t0 = System.nanoTime();
        try (LocalCluster cluster = LocalCluster.start(dataDir, fresh, kafkaPort, registryPort, Topics.ALL)) {
            final CountDownLatch stop = new CountDownLatch(1);
            final Thread hook = new Thread(stop::countDown, "goodput-demo-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            out.println("Goodput local run");
            out.printf(Locale.ROOT, "  contract   %s  id %s%n", contractFile, contract.id());
            out.printf(Locale.ROOT, "  kafka      %s  (started in %d ms; data %s, kept between runs; --fresh starts clean)%n",
                    cluster.bootstrapServers(), cluster.kafka().lastStartTime().toMillis(), dataDir);
            out.printf(Locale.ROOT, "  registry   %s%n", cluster.registryUrl());
            out.printf(Locale.ROOT, "  topics     %s%n", Topics.ALL.stream()
                    .map(t -> t.name() + "(" + t.partitions() + ")").collect(Collectors.joining(" ")));
            out.printf(Locale.ROOT, "  ready in   %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            out.println(duration == null ? "Press Ctrl-C to stop." : "Stopping after " + duration.toSeconds() + " s.");
            out.flush();
            if (duration == null) {
                stop.await();
            } else {
                stop.await(duration.toMillis(), TimeUnit.MILLISECONDS);
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            out.println("Stopping.");
        }
        out.println("Stopped.");
        return 0;
    }
}

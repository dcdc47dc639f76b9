package dev.goodput.runner;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code goodput broker}: a single-node KRaft broker as its own process, on fixed ports, with its
 * data kept in a folder between starts. For local operation without Docker and for fault drills
 * (stop it, start it again on the same data, and watch the other parts recover).
 */
@Command(name = "broker", mixinStandardHelpOptions = true,
        description = "Run a single-node Kafka broker (KRaft) with kept data, until Ctrl-C.")
final class BrokerCommand implements Callable<Integer> {

    @Option(names = "--data-dir", defaultValue = ".goodput/broker", description = "Broker data, kept between starts (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--port", defaultValue = "9092", description = "Client (PLAINTEXT) port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--controller-port", defaultValue = "9093", description = "KRaft controller port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int controllerPort;

    @Option(names = "--create-topics", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Create the pipeline's topics with their partitions and retention (default: ${DEFAULT-VALUE}).")
    boolean createTopics;

    @Override
    public Integer call() throws InterruptedException {
        if (port < 0 || port > 65_535 || controllerPort < 0 || controllerPort > 65_535 || port == controllerPort && port != 0) {
            throw new StartupException("--port " + port + " and --controller-port " + controllerPort
                    + ": two different ports from 1 to 65535 (0: any free port)", Main.EXIT_REFUSED, null);
        }
        StartupException.requireLocalBroker("goodput broker");
        return LocalBroker.serve(dataDir, port, controllerPort, createTopics);
    }
}

package dev.goodput.kafka;

import java.io.IOException;

/**
 * Runs a temporary broker as its own process (for benchmarks that must not count the broker's CPU
 * as theirs). Prints {@code bootstrap=<host:port>} once ready and stops when standard input closes.
 */
public final class EmbeddedKafkaMain {
    private EmbeddedKafkaMain() {
    }

    public static void main(String[] args) throws IOException {
        try (EmbeddedKafka kafka = EmbeddedKafka.startTemporary()) {
            // a parent that destroys this process (SIGTERM) skips the close below: remove the data folder anyway
            Runtime.getRuntime().addShutdownHook(new Thread(kafka::close, "goodput-broker-shutdown"));
            System.out.println("bootstrap=" + kafka.bootstrapServers());
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the parent to close our stdin
            }
        }
    }
}

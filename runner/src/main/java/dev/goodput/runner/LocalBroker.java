package dev.goodput.runner;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import dev.goodput.kafka.EmbeddedKafka;
import dev.goodput.topics.Topics;
import org.apache.kafka.clients.admin.Admin;

/**
 * What {@code goodput broker} does, apart from its command class: picocli reads every method of a
 * command class when it builds the command line, and these name the broker's types, which the
 * production image leaves out.
 */
final class LocalBroker {
    private LocalBroker() {
    }

    static int serve(Path dataDir, int port, int controllerPort, boolean createTopics) throws InterruptedException {
        final EmbeddedKafka kafka;
        try {
            kafka = EmbeddedKafka.startPersistent(dataDir.resolve("kafka"), port, controllerPort, Map.of());
        } catch (RuntimeException e) {
            throw new StartupException("cannot start the broker on 127.0.0.1:" + port + " (data " + dataDir + "): "
                    + StartupException.rootMessage(e), Main.EXIT_FAILED, e);
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            kafka.close();
            stopped.countDown();
        }, "goodput-broker-shutdown"));
        if (createTopics) {
            try (Admin admin = kafka.admin()) {
                Topics.createMissing(admin, Topics.ALL, (short) 1);
            }
        }
        System.out.println("broker ready at " + kafka.bootstrapServers() + " (controller port " + kafka.controllerPort() + ") in " + kafka.lastStartTime().toMillis()
                + " ms (data " + dataDir + ", kept); Ctrl-C to stop");
        System.out.flush();
        stopped.await();
        return 0;
    }
}

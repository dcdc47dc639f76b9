package dev.goodput.sink;

import java.time.Duration;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A consumer polled on a thread of its own, each record handed on. A record that cannot be handled
 * is skipped, not fatal: results that cannot be read were refused upstream, where the DLQ holds them.
 */
final class PollLoop implements AutoCloseable {

    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private volatile boolean running = true;

    PollLoop(KafkaConsumer<String, byte[]> consumer, String name, Consumer<ConsumerRecord<String, byte[]>> each,
             Runnable afterPoll, Runnable onStop) {
        this.consumer = consumer;
        this.thread = new Thread(() -> {
            try {
                while (running) {
                    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                        try {
                            each.accept(r);
                        } catch (RuntimeException unreadable) {
                            // skipped (see the class comment)
                        }
                    }
                    afterPoll.run();
                }
            } catch (WakeupException stop) {
                // closing
            } finally {
                consumer.close();
                onStop.run();
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

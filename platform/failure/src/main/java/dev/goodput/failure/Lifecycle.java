package dev.goodput.failure;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.streams.KafkaStreams;

/** The waiting part of a long-running command's lifecycle: until Ctrl-C, or until its app fails. */
public final class Lifecycle {

    private Lifecycle() {
    }

    /**
     * Runs a long-running command's app until Ctrl-C (exit 0) or until it gives up on an error: then
     * it prints {@code goodput: the <part> stopped: <cause>}, closes, and returns 1. {@code close}
     * runs once either way (from the shutdown hook on Ctrl-C). {@code running} is printed once the
     * hook is in place.
     */
    public static int run(String part, KafkaStreams streams, FailurePolicy failures, String running, Runnable close)
            throws InterruptedException {
        final CountDownLatch stop = new CountDownLatch(1);
        final Thread hook = new Thread(() -> {
            close.run();
            stop.countDown();
        }, "goodput-" + part + "-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.println(running);
        System.out.flush();
        if (awaitStopOrError(streams, stop)) {
            return 0;
        }
        System.err.println("goodput: the " + part + " stopped: " + failures.reason());
        closeWithoutHook(hook, close);
        return 1;
    }

    /**
     * Waits until {@code stop} opens (true) or the app reaches {@code ERROR} (false). A Kafka Streams
     * app that gave up does not end the JVM on its own: without this the command would sit there,
     * printing nothing, with its results stopped.
     */
    static boolean awaitStopOrError(KafkaStreams streams, CountDownLatch stop) throws InterruptedException {
        while (!stop.await(250, TimeUnit.MILLISECONDS)) {
            final KafkaStreams.State s = streams.state();
            // NOT_RUNNING is what a close (Ctrl-C) leads to; a failure that gave up leads to ERROR
            if (s == KafkaStreams.State.ERROR || s == KafkaStreams.State.PENDING_ERROR) {
                return stop.getCount() == 0;
            }
        }
        return true;
    }

    /** Closes after a failure and takes the shutdown hook back, so the JVM can exit with the command's code. */
    static void closeWithoutHook(Thread hook, Runnable close) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            return; // the hook is closing the app already
        }
        close.run();
    }
}

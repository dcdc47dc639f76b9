package dev.goodput.runner;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.goodput.failure.FailurePolicy;
import dev.goodput.sink.SinkApp;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The demo's watch on its pipeline: stops the run when the streams-app or the sink gives up on an
 * error (after its bounded thread replacements), instead of running on without it, and names the
 * part and the cause.
 */
final class PipelineWatch {

    static final String STREAMS_STOPPED = "streams-app stopped: ";
    static final String SINK_STOPPED = "sink stopped: ";

    private PipelineWatch() {
    }

    /** Watches every 500 ms until {@code stop} opens; a failure sets {@code failedPart} and opens it. */
    static void start(KafkaStreams streams, FailurePolicy streamsFailures, SinkApp.Running sink, CountDownLatch stop,
                      AtomicReference<String> failedPart) {
        final Thread watcher = new Thread(() -> {
            try {
                while (!stop.await(500, TimeUnit.MILLISECONDS)) {
                    final String failed = failed(streams) ? STREAMS_STOPPED + streamsFailures.reason()
                            : failed(sink.streams()) ? SINK_STOPPED + sink.failures().reason() : null;
                    if (failed != null) {
                        failedPart.set(failed);
                        stop.countDown();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "goodput-demo-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    /**
     * Whether {@code failedPart} is the streams-app's or the sink's: then the run's windows cannot all
     * be closed and priced, so waiting for them only delays the error. A load generator that stopped
     * leaves a pipeline that can still close what it measured.
     */
    static boolean stopped(String failedPart) {
        return failedPart != null && (failedPart.startsWith(STREAMS_STOPPED) || failedPart.startsWith(SINK_STOPPED));
    }

    private static boolean failed(KafkaStreams s) {
        return s.state() == KafkaStreams.State.ERROR || s.state() == KafkaStreams.State.PENDING_ERROR;
    }
}

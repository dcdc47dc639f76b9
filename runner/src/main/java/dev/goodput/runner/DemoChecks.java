package dev.goodput.runner;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * The demo's checks before anything starts, each refusal naming its flag and the fix: a malformed
 * sweep target, a simulator of no sequences, a port already taken. A busy port used to end in a
 * broker trace that suggested --fresh (which deletes kept data), or an UncheckedIOException after
 * sixty lines of unrelated output.
 */
final class DemoChecks {
    private DemoChecks() {
    }

    /** @throws IllegalArgumentException naming the flag */
    static void atStart(SweepOptions sweep, int simMaxBatch, boolean external, int kafkaPort, int registryPort, int metricsPort) {
        if (sweep.on) {
            sweep.target();
            if (sweep.repeat < 1) {
                throw new IllegalArgumentException("--sweep-repeat " + sweep.repeat + ": 1 or more runs of each point");
            }
        }
        if (simMaxBatch < 1) {
            throw new IllegalArgumentException("--sim-max-batch " + simMaxBatch + ": 1 or more");
        }
        if (!external) {
            free(kafkaPort, "--kafka-port");
            free(registryPort, "--registry-port");
        }
        free(metricsPort, "--metrics-port");
    }

    /** A port given (not 0) that something on this machine's loopback already listens on is refused. */
    static void free(int port, String flag) {
        if (port == 0) {
            return;
        }
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            throw new IllegalArgumentException("port " + port + " is in use: choose another " + flag + " (0 picks a free one)");
        }
    }
}

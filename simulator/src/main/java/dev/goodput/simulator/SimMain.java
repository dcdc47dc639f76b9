package dev.goodput.simulator;

import java.io.IOException;
import java.nio.file.Path;

import dev.goodput.contract.load.Corpus;

/**
 * Runs the simulator as its own process for benchmarks: {@code SimMain corpus maxBatch stepUs perSeqUs}.
 * Prints {@code port=<n>} once listening and stops when standard input closes.
 */
public final class SimMain {
    /** Traces kept for the benchmark's reads of /sim/trace between its drains. */
    private static final int TRACES = 1_000_000;

    private SimMain() {
    }

    public static void main(String[] args) throws IOException {
        final SimConfig config = SimConfig.defaults().withCapacity(Integer.parseInt(args[1]), 100_000)
                .withStep(Long.parseLong(args[2]), Double.parseDouble(args[3])).withOutput(1, 0, 0.0).withPrefill(1e9);
        try (SimServer sim = new SimServer(config, Corpus.load(Path.of(args[0])), 0, TRACES)) {
            System.out.println("port=" + sim.port());
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the parent to close our stdin
            }
        }
    }
}

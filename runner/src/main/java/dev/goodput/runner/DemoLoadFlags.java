package dev.goodput.runner;

import java.time.Duration;
import java.util.List;

import dev.goodput.contract.Contract;
import dev.goodput.generator.load.Matrix;
import dev.goodput.generator.load.Scenario;
import picocli.CommandLine.Option;

/**
 * The load flags of {@code produce}, under vLLM's and AIPerf's names too, for the demo: given any of
 * them, the demo runs one scenario built from them instead of a matrix file, as a vLLM user runs
 * {@code vllm bench serve --request-rate 5 --random-input-len 256}.
 */
public final class DemoLoadFlags {

    @Option(names = {"--request-rate", "--rate"}, description = "Requests per second (open loop), one scenario instead of --matrix.")
    Double rate;

    @Option(names = "--concurrency", description = "Concurrent requests (closed loop), one scenario instead of --matrix.")
    Integer concurrency;

    @Option(names = {"--random-input-len", "--prompt-tokens", "--synthetic-input-tokens-mean", "--isl"},
            description = "Prompt length in tokens of that scenario (default: 128).")
    Integer promptTokens;

    @Option(names = {"--random-output-len", "--output-tokens", "--output-tokens-mean", "--osl"},
            description = "Output length in tokens of that scenario (default: 64, within the contract's cap).")
    Integer outputTokens;

    @Option(names = "--cache", description = "That scenario's cache condition: cold (unique prompt prefixes), warm (one shared"
            + " prefix), sharedN (the first N % of every prompt one common prefix, e.g. shared90) or turnsN (sessions of N turns,"
            + " each prompt the session's history and a new question; the load counts users or session arrivals/s; 1 s of think"
            + " time, a 4096-token context: set think_time_s and context_tokens in a --matrix file) (default: cold).")
    String cache;

    /** Whether any load flag was given. */
    boolean given() {
        return rate != null || concurrency != null || promptTokens != null || outputTokens != null || cache != null;
    }

    /**
     * The one-scenario matrix the flags describe. Its measured time: {@code scenarioSeconds} when
     * given, else what {@code duration} leaves after the warm-up (so the scenario ends as the demo
     * stops, not cut by it), else 60 s.
     *
     * @throws IllegalArgumentException naming the flag, for a rate and a concurrency both, or values out of range
     */
    Matrix matrix(Contract contract, Double scenarioSeconds, Duration duration) {
        if (rate != null && concurrency != null) {
            throw new IllegalArgumentException("--request-rate and --concurrency: give one (open loop or closed loop)");
        }
        final Double r = rate != null ? rate : concurrency != null ? null : contract.arrival().rateRps();
        final Integer c = concurrency != null ? concurrency : r == null ? contract.arrival().concurrency() : null;
        if (r == null && c == null) {
            throw new IllegalArgumentException("give --request-rate or --concurrency (the contract sets neither)");
        }
        final int out = outputTokens != null ? outputTokens : Math.min(64, contract.outputCapTokens());
        final Scenario sc = new Scenario(promptTokens != null ? promptTokens : 128, out, r, c, cache != null ? cache : "cold");
        Scenario.withinCap(List.of(sc), contract.outputCapTokens());
        final double seconds = scenarioSeconds != null ? scenarioSeconds
                : duration != null ? Math.max(1, duration.toMillis() / 1000.0 - contract.arrival().warmupS() - 1) : 60;
        return new Matrix(List.of(sc), seconds);
    }
}

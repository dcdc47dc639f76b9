package dev.goodput.simulator;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import dev.goodput.config.Home;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.contract.load.Corpus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code goodput simulate}: the simulated inference server on its own, until Ctrl-C. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Run the simulated OpenAI-compatible inference server (continuous batching, SSE) on loopback.")
public final class SimulateCommand implements Callable<Integer> {

    @Option(names = "--port", defaultValue = "8000", description = "Port on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--contract", defaultValue = Home.CONFIG + "contract.yaml", description = "Contract whose corpus gives the expected answers.")
    Path contractFile;

    @Option(names = "--max-batch", defaultValue = "64", description = "Sequences decoded together.")
    int maxBatch;

    @Option(names = "--queue-limit", defaultValue = "512", description = "Waiting requests before 429s.")
    int queueLimit;

    @Option(names = "--step-us", defaultValue = "8000", description = "Decode step time with a batch of one, microseconds.")
    long stepUs;

    @Option(names = "--step-per-seq-us", defaultValue = "40", description = "Extra step time per running sequence, microseconds.")
    double perSeqUs;

    @Option(names = "--prefill-tokens-per-s", defaultValue = "50000", description = "Prefill throughput.")
    double prefill;

    @Option(names = "--error-rate", defaultValue = "0", description = "Fraction of requests answered 500.")
    double errorRate;

    @Option(names = "--reset-rate", defaultValue = "0", description = "Fraction of streams reset mid-stream.")
    double resetRate;

    @Option(names = "--stall-rate", defaultValue = "0", description = "Fraction of streams that stall.")
    double stallRate;

    @Option(names = "--stall-ms", defaultValue = "0", description = "Length of a stall, milliseconds.")
    long stallMs;

    @Option(names = "--quality-miss-rate", defaultValue = "0.05", description = "Fraction of wrong answers.")
    double missRate;

    @Option(names = "--tokens-per-chunk", defaultValue = "1", description = "Tokens per streamed chunk.")
    int tokensPerChunk;

    @Option(names = "--reasoning-tokens", defaultValue = "0", description = "Tokens streamed as reasoning_content first.")
    int reasoningTokens;

    @Override
    public Integer call() throws InterruptedException {
        final Contract contract = ContractLoader.load(contractFile);
        final Corpus corpus = Corpus.load(ContractLoader.verifyCorpus(contract, contractFile.toAbsolutePath().getParent()));
        final SimConfig config = SimConfig.defaults().withCapacity(maxBatch, queueLimit).withStep(stepUs, perSeqUs)
                .withPrefill(prefill).withErrors(errorRate, resetRate, stallRate, stallMs)
                .withOutput(tokensPerChunk, reasoningTokens, missRate);
        final CountDownLatch stop = new CountDownLatch(1);
        try (SimServer sim = new SimServer(config, corpus, port)) {
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "goodput-simulate-shutdown"));
            System.out.println("simulated inference server at " + sim.baseUrl() + " (Ctrl-C to stop)");
            stop.await();
        }
        return 0;
    }
}

package dev.goodput.simulator;

/**
 * How the simulated inference server behaves: a continuous-batching engine whose decode step grows
 * with the batch, with a bounded queue (then 429, or 503), prefix caching, and injected faults.
 *
 * @param prefillTokensPerS   prefill throughput; uncached prompt tokens cost 1/rate each, in the step that admits them
 * @param decodeStepBaseUs    decode step time with a batch of one
 * @param decodeStepPerSeqUs  extra step time per running sequence: saturation shows as rising ITL and TTFT
 * @param maxBatch            sequences decoded together; the rest wait in the queue
 * @param queueLimit          waiting requests beyond which new ones are refused with {@code overloadStatus}
 * @param overloadStatus      429 or 503
 * @param errorRate           fraction of requests answered 500 at once
 * @param resetRate           fraction of streams whose connection is reset mid-stream
 * @param stallRate           fraction of streams that stop sending for {@code stallMs} mid-stream
 * @param stallMs             length of a stall
 * @param qualityMissRate     fraction of answers that are wrong
 * @param tokensPerChunk      tokens sent in each streamed chunk
 * @param reasoningTokens     tokens streamed as reasoning_content before the answer
 * @param prefixBlockTokens   prefix-cache block size in tokens (vLLM-style block hashing)
 * @param seed                seed of every random choice, for repeatable runs
 * @param model               model name reported in responses
 */
public record SimConfig(double prefillTokensPerS, long decodeStepBaseUs, double decodeStepPerSeqUs, int maxBatch,
                        int queueLimit, int overloadStatus, double errorRate, double resetRate, double stallRate,
                        long stallMs, double qualityMissRate, int tokensPerChunk, int reasoningTokens,
                        int prefixBlockTokens, long seed, String model) {

    /** A healthy mid-size server: 8 ms steps, 64 sequences per batch. */
    public static SimConfig defaults() {
        return new SimConfig(50_000, 8_000, 40, 64, 512, 429, 0.0, 0.0, 0.0, 0, 0.05, 1, 0, 16, 42,
                "goodput/simulated-8b-instruct");
    }

    public SimConfig withErrors(double error, double reset, double stall, long stallMillis) {
        return new SimConfig(prefillTokensPerS, decodeStepBaseUs, decodeStepPerSeqUs, maxBatch, queueLimit,
                overloadStatus, error, reset, stall, stallMillis, qualityMissRate, tokensPerChunk, reasoningTokens,
                prefixBlockTokens, seed, model);
    }

    public SimConfig withCapacity(int batch, int queue) {
        return new SimConfig(prefillTokensPerS, decodeStepBaseUs, decodeStepPerSeqUs, batch, queue, overloadStatus,
                errorRate, resetRate, stallRate, stallMs, qualityMissRate, tokensPerChunk, reasoningTokens,
                prefixBlockTokens, seed, model);
    }

    public SimConfig withStep(long baseUs, double perSeqUs) {
        return new SimConfig(prefillTokensPerS, baseUs, perSeqUs, maxBatch, queueLimit, overloadStatus, errorRate,
                resetRate, stallRate, stallMs, qualityMissRate, tokensPerChunk, reasoningTokens, prefixBlockTokens,
                seed, model);
    }

    public SimConfig withOutput(int chunkTokens, int reasoning, double missRate) {
        return new SimConfig(prefillTokensPerS, decodeStepBaseUs, decodeStepPerSeqUs, maxBatch, queueLimit,
                overloadStatus, errorRate, resetRate, stallRate, stallMs, missRate, chunkTokens, reasoning,
                prefixBlockTokens, seed, model);
    }

    public SimConfig withPrefill(double tokensPerS) {
        return new SimConfig(tokensPerS, decodeStepBaseUs, decodeStepPerSeqUs, maxBatch, queueLimit, overloadStatus,
                errorRate, resetRate, stallRate, stallMs, qualityMissRate, tokensPerChunk, reasoningTokens,
                prefixBlockTokens, seed, model);
    }
}

package dev.goodput.sink;

import dev.goodput.avro.GpuPrice;

/** The cost definitions of the README's definitions table, one small pure function each. */
public final class CostFormulas {

    private CostFormulas() {
    }

    /**
     * Compute-only cost per million output tokens at achieved throughput:
     * GPU $/h x GPUs / (achieved output tokens/s x 3600) x 1e6. NaN when nothing was produced.
     */
    public static double computeCostPerMillion(double usdPerGpuHour, int gpus, double achievedTokensPerS) {
        return achievedTokensPerS <= 0 ? Double.NaN : usdPerGpuHour * gpus / (achievedTokensPerS * 3600) * 1e6;
    }

    /**
     * Everything the deployment costs per hour before headroom: GPUs, CPU, storage, network,
     * observability, support, and GPU time spent on cold starts (priced at the GPU rate).
     */
    public static double hourlyCost(GpuPrice p, int gpus) {
        return p.getUsdPerGpuHour() * gpus + p.getCpuUsdPerHour() + p.getStorageUsdPerHour() + p.getNetworkUsdPerHour()
                + p.getObservabilityUsdPerHour() + p.getSupportUsdPerHour()
                + p.getColdStartGpuHoursPerHour() * p.getUsdPerGpuHour();
    }

    /**
     * Cost per successful million tokens: hourly cost x (1 + warm headroom) x window hours / output
     * tokens of good requests x 1e6. NaN when no good token was produced.
     */
    public static double costPerSuccessfulMillion(double hourlyCost, double headroomFraction, double windowSeconds,
                                                  long goodOutputTokens) {
        return goodOutputTokens <= 0 ? Double.NaN
                : hourlyCost * (1 + headroomFraction) * (windowSeconds / 3600) / goodOutputTokens * 1e6;
    }

    /** Achieved throughput over a configured peak, when one is configured (NaN otherwise). */
    public static double utilization(double achievedTokensPerS, Double peakTokensPerS) {
        return peakTokensPerS == null || peakTokensPerS <= 0 ? Double.NaN : achievedTokensPerS / peakTokensPerS;
    }
}

package dev.goodput.definitions;

import java.util.List;

/**
 * The cost definitions of the README's definitions table, one small pure function each. The sink
 * (per window and per rolling span) and the report (per scenario) compute every cost through these.
 */
public final class CostFormulas {
    private static final double SECONDS_PER_HOUR = 3600;

    private CostFormulas() {
    }

    /**
     * What one GPU type costs per hour besides the GPUs: CPU, storage, network, observability,
     * support, and the GPU-hours per hour spent on cold starts. All in USD per hour.
     */
    public record Rates(double usdPerGpuHour, double cpuUsdPerHour, double storageUsdPerHour, double networkUsdPerHour,
                        double observabilityUsdPerHour, double supportUsdPerHour, double coldStartGpuHoursPerHour) {
    }

    /** One stretch of priced time: its length, the hourly cost and headroom in force, the GPU rate, its tokens. */
    public record Segment(double seconds, double hourlyCostUsd, double headroomFraction, double usdPerGpuHour,
                          long outputTokensOk, long outputTokensGood) {
    }

    /** The sums over a span of segments. */
    public record Span(double seconds, double costUsd, double gpuCostUsd, long outputTokensOk, long outputTokensGood) {
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
    public static double hourlyCost(Rates p, int gpus) {
        return p.usdPerGpuHour() * gpus + p.cpuUsdPerHour() + p.storageUsdPerHour() + p.networkUsdPerHour()
                + p.observabilityUsdPerHour() + p.supportUsdPerHour()
                + p.coldStartGpuHoursPerHour() * p.usdPerGpuHour();
    }

    /** What a stretch of time costs: hourly cost x (1 + warm headroom) x hours. */
    public static double segmentCost(double hourlyCost, double headroomFraction, double seconds) {
        return hourlyCost * (1 + headroomFraction) * seconds / SECONDS_PER_HOUR;
    }

    /**
     * A span (one window, a rolling span of windows, or a scenario): seconds, cost with headroom,
     * GPU cost and tokens, each summed over its segments, which may carry different prices.
     */
    public static Span span(List<Segment> segments, int gpus) {
        double seconds = 0;
        double cost = 0;
        double gpuCost = 0;
        long ok = 0;
        long good = 0;
        for (Segment s : segments) {
            seconds += s.seconds();
            cost += segmentCost(s.hourlyCostUsd(), s.headroomFraction(), s.seconds());
            gpuCost += s.usdPerGpuHour() * gpus * s.seconds() / SECONDS_PER_HOUR;
            ok += s.outputTokensOk();
            good += s.outputTokensGood();
        }
        return new Span(seconds, cost, gpuCost, ok, good);
    }

    /**
     * The seconds of one window a scenario is charged: the part of the window inside the scenario's
     * measured span (from its warm-up end to its end), so that two scenarios sharing a window split
     * it, a scenario that touches a window for a second is charged a second, the charged seconds of
     * a run never exceed its wall time, and a window the scenario fills (continuous traffic) is
     * charged in full. Never negative.
     */
    public static double chargedSeconds(long windowStartUs, long windowEndUs, long spanStartUs, long spanEndUs) {
        return Math.max(0, Math.min(windowEndUs, spanEndUs) - Math.max(windowStartUs, spanStartUs)) / 1e6;
    }

    /** Cost per successful million tokens: cost / output tokens of good requests x 1e6. NaN when none was good. */
    public static double costPerSuccessfulMillion(double costUsd, long goodOutputTokens) {
        return goodOutputTokens <= 0 ? Double.NaN : costUsd / goodOutputTokens * 1e6;
    }

    /**
     * Cost per successful million tokens of one window: hourly cost x (1 + warm headroom) x window
     * hours / output tokens of good requests x 1e6. NaN when no good token was produced.
     */
    public static double costPerSuccessfulMillion(double hourlyCost, double headroomFraction, double windowSeconds,
                                                  long goodOutputTokens) {
        return costPerSuccessfulMillion(segmentCost(hourlyCost, headroomFraction, windowSeconds), goodOutputTokens);
    }

    /**
     * What tokens cost at a retail price list: uncached input tokens at the input price, cached
     * input tokens at the cached-input price, output tokens at the output price, each per million.
     * {@code cachedInputTokens} are part of {@code inputTokens}, as a usage report counts them.
     */
    public static double retailCost(long inputTokens, long cachedInputTokens, long outputTokens, double usdPerMInput,
                                    double usdPerMCachedInput, double usdPerMOutput) {
        return ((inputTokens - cachedInputTokens) * usdPerMInput + cachedInputTokens * usdPerMCachedInput
                + outputTokens * usdPerMOutput) / 1e6;
    }

    /** The hourly rate a cost over some seconds amounts to; NaN over no time. */
    public static double hourlyRate(double costUsd, double seconds) {
        return seconds <= 0 ? Double.NaN : costUsd / (seconds / SECONDS_PER_HOUR);
    }

    /** The GPU price per GPU-hour a span's GPU cost amounts to; NaN over no time. */
    public static double perGpuHour(double gpuCostUsd, int gpus, double seconds) {
        return seconds <= 0 ? Double.NaN : gpuCostUsd / gpus / (seconds / SECONDS_PER_HOUR);
    }

    /** Achieved output tokens per second over a span (0 over no time). */
    public static double achievedTokensPerS(long outputTokensOk, double seconds) {
        return seconds <= 0 ? 0 : outputTokensOk / seconds;
    }

    /** Achieved throughput over a configured peak, when one is configured (NaN otherwise). */
    public static double utilization(double achievedTokensPerS, Double peakTokensPerS) {
        return peakTokensPerS == null || peakTokensPerS <= 0 ? Double.NaN : achievedTokensPerS / peakTokensPerS;
    }
}

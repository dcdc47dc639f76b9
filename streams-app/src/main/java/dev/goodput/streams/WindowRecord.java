package dev.goodput.streams;

import java.util.HashMap;

import dev.goodput.assembly.WindowAgg;
import dev.goodput.avro.LatencySummary;
import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;
import dev.goodput.definitions.SloFlags;
import dev.goodput.definitions.WindowTotals;
import dev.goodput.records.LatencySummaries;

/** A window's {@link WindowAgg} as its Avro record on llm.window-stats. */
final class WindowRecord {
    private WindowRecord() {
    }

    /**
     * The window as its record, with the judging that made it: {@code objectives} and {@code floor}
     * are the ones its requests' verdicts applied (the contract's, or a what-if's), so the result
     * carries them wherever it goes.
     */
    static WindowStats toAvro(WindowAgg a, Contract c, long sizeUs, long graceUs, Contract.Objectives objectives, double floor, boolean isFinal) {
        final double seconds = sizeUs / 1e6;
        final WindowTotals t = a.totals;
        final int gpus = c.hardware().gpuCount();
        return WindowStats.newBuilder()
                .setContractId(a.contractId).setScenarioId(a.scenarioId)
                .setWindowStartUs(Micros.toInstant(a.startUs)).setWindowEndUs(Micros.toInstant(a.startUs + sizeUs)).setIsFinal(isFinal)
                .setGraceUs(graceUs).setObjectives(SloFlags.text(objectives)).setQualityFloor(floor)
                .setGpuType(c.hardware().gpuType()).setGpuCount(gpus)
                .setPriceKey(c.hardware().priceKey())
                .setRequestsTotal(t.total()).setRequestsOk(t.ok()).setRequestsError(t.error()).setRequestsTimeout(t.timeout())
                .setRequestsAbandoned(t.abandoned()).setErrorsByClass(new HashMap<>(t.errorsByClass()))
                .setSloPassRequests(t.sloPass()).setQualityPassRequests(t.qualityPass()).setGoodRequests(t.good())
                .setOutputTokensOk(t.outputTokensOk()).setOutputTokensGood(t.outputTokensGood())
                .setGoodputRps(t.goodputRps(seconds))
                .setGoodputTokensPerS(t.goodputTokensPerS(seconds))
                .setGoodFraction(t.goodFraction())
                .setOutputTokensPerS(t.outputTokensPerS(seconds))
                .setTokensPerGpuSecond(t.tokensPerGpuSecond(seconds, gpus))
                .setLateEvents(t.lateEvents()).setRefusedEvents(new HashMap<>(t.refused()))
                .setTtft(summary(t, 0)).setTtfat(summary(t, 1)).setItl(summary(t, 2)).setTpot(summary(t, 3))
                .setE2e(summary(t, 4)).setDispatchLateness(summary(t, 5))
                .setTpotTokenWeightedMeanUs(t.tpotTokenWeightedMeanUs())
                .setLiveStartUs(t.hasLive() ? t.liveFromUs() : a.startUs).setLiveEndUs(t.hasLive() ? t.liveToUs() : a.startUs)
                .setCacheRequests(t.cacheCounts()[0]).setCachePromptTokens(t.cacheCounts()[1]).setCachedPromptTokens(t.cacheCounts()[2])
                .setCacheHitRate(t.cacheCounts()[0] == 0 ? null : Definitions.cacheHitRate(t.cacheCounts()[2], t.cacheCounts()[1]))
                .build();
    }

    /** A histogram of the totals as the record carries it: over its metric's whole range. */
    private static LatencySummary summary(WindowTotals t, int histogram) {
        return LatencySummaries.overRange(t.histograms()[histogram], WindowTotals.RANGES_US[histogram]);
    }
}

package dev.goodput.testing;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.ChunkKind;
import dev.goodput.avro.CostRecord;
import dev.goodput.avro.GpuPrice;
import dev.goodput.avro.LatencySummary;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.avro.TokenEvent;
import dev.goodput.avro.WindowStats;
import org.apache.avro.specific.SpecificRecord;

/** One filled-in record of every schema, every optional field set, for round-trip tests. */
public final class SampleRecords {
    public static final Instant T0 = Instant.parse("2026-11-29T12:00:00.123456Z");

    private SampleRecords() {
    }

    public static List<SpecificRecord> all() {
        return List.of(token(), request(), verdict(), windowStats(), price(), cost(), runSummary());
    }

    public static TokenEvent token() {
        return TokenEvent.newBuilder().setContractId("c".repeat(64)).setRunId("run-1").setScenarioId("p128-o64-r10-cold")
                .setRequestId("req-1").setChunkIndex(3).setKind(ChunkKind.REASONING).setTokens(2)
                .setArrivalTimeUs(T0).setWarmup(false).build();
    }

    public static RequestEvent request() {
        return RequestEvent.newBuilder().setContractId("c".repeat(64)).setRunId("run-1").setScenarioId("s1")
                .setTargetId("sim").setGpuType("H100").setGpuCount(8).setRequestId("req-1").setAttempt(1)
                .setIntendedSendTimeUs(T0).setActualSendTimeUs(T0.plusNanos(15_000))
                .setFirstChunkTimeUs(T0.plusMillis(120)).setFirstAnswerTimeUs(T0.plusMillis(300))
                .setLastChunkTimeUs(T0.plusMillis(900)).setCompletionTimeUs(T0.plusMillis(901))
                .setPromptTokens(128).setOutputTokens(64).setOutputTokensSource(TokenCountSource.SERVER_USAGE)
                .setContentChunks(60).setStatus(RequestStatus.OK).setErrorClass(null).setErrorMessage(null)
                .setHttpStatus(200).setQualityScore(1.0).setQualityPass(true).setWarmup(false).build();
    }

    public static RequestVerdict verdict() {
        return RequestVerdict.newBuilder().setContractId("c".repeat(64)).setRunId("run-1").setScenarioId("s1")
                .setRequestId("req-1").setCompletionTimeUs(T0).setStatus(RequestStatus.ERROR).setErrorClass("http_503")
                .setTtftUs(120_000L).setTtfatUs(300_000L).setE2eUs(900_000L).setTpotUs(12_345.5)
                .setDispatchLatenessUs(15).setOutputTokens(64).setSloPass(false).setFailedObjectives(List.of("status"))
                .setQualityPass(false).setGood(false).build();
    }

    public static LatencySummary summary(long p50) {
        return LatencySummary.newBuilder().setCount(10).setP50Us(p50).setP90Us(p50 * 2).setP95Us(p50 * 3)
                .setP99Us(p50 * 4).setP999Us(p50 * 5).setMaxUs(p50 * 6).setMeanUs(p50 * 1.5)
                .setHistogram(ByteBuffer.wrap(new byte[] {1, 2, 3})).build();
    }

    public static WindowStats windowStats() {
        return WindowStats.newBuilder().setContractId("c".repeat(64)).setScenarioId("s1").setWindowStartUs(T0)
                .setWindowEndUs(T0.plusSeconds(10)).setIsFinal(true).setGpuType("H100").setGpuCount(1)
                .setPriceKey("cloud/h100").setRequestsTotal(10).setRequestsOk(8).setRequestsError(1)
                .setRequestsTimeout(1).setRequestsAbandoned(0).setErrorsByClass(Map.of("http_503", 1L, "timeout", 1L))
                .setSloPassRequests(7).setQualityPassRequests(8).setGoodRequests(6).setOutputTokensOk(800)
                .setOutputTokensGood(600).setGoodputRps(0.6).setGoodputTokensPerS(60).setGoodFraction(0.6)
                .setOutputTokensPerS(80).setTokensPerGpuSecond(80).setLateEvents(2)
                .setTtft(summary(100)).setTtfat(summary(200)).setItl(summary(10)).setTpot(summary(11))
                .setE2e(summary(1000)).setDispatchLateness(summary(1)).setTpotTokenWeightedMeanUs(11.5).build();
    }

    public static GpuPrice price() {
        return GpuPrice.newBuilder().setPriceKey("cloud/h100").setProvider("cloud").setGpuType("H100")
                .setUsdPerGpuHour(6.5).setCurrency("USD").setEffectiveFromUs(T0).setSource("list price 2026-11")
                .setCpuUsdPerHour(0.5).setStorageUsdPerHour(0.1).setNetworkUsdPerHour(0.05)
                .setObservabilityUsdPerHour(0.02).setSupportUsdPerHour(0.3).setColdStartGpuHoursPerHour(0.05)
                .setWarmHeadroomFraction(0.2).build();
    }

    public static CostRecord cost() {
        return CostRecord.newBuilder().setContractId("c".repeat(64)).setScenarioId("s1").setSpan("window")
                .setWindowStartUs(T0).setWindowEndUs(T0.plusSeconds(10)).setPriceKey("cloud/h100").setPriced(true)
                .setUnpricedReason(null).setUsdPerGpuHour(6.5).setPriceEffectiveFromUs(T0).setPriceSource("list")
                .setGpuCount(1).setWindowSeconds(10).setRequestsTotal(100).setGoodRequests(85).setOutputTokensOk(7700)
                .setOutputTokensGood(6545).setAchievedTokensPerS(770).setComputeCostPerMUsd(2.3449)
                .setCostPerSuccessfulMUsd(2.7587).setHourlyCostUsd(6.5).setUtilization(0.55).build();
    }

    public static RunSummary runSummary() {
        return RunSummary.newBuilder().setContractId("c".repeat(64)).setRunId("run-1").setScenarioId("s1")
                .setGeneratorId("gen-1").setTargetId("sim").setArrival("poisson").setRateRps(20.0).setConcurrency(null)
                .setStartedUs(T0).setWarmupEndUs(T0.plusSeconds(2)).setEndedUs(T0.plusSeconds(12)).setRequests(200)
                .setWarmupRequests(40).setRequestsOk(190).setRequestsError(5).setRequestsTimeout(3).setRequestsAbandoned(2)
                .setTokenEvents(12_000).setLatenessP50Us(40).setLatenessP99Us(300).setLatenessMaxUs(900)
                .setLatenessBoundUs(1000).setGeneratorSaturated(false).setGeneratorCpuS(1.5).setWallS(12.0).build();
    }
}

package dev.goodput.capture;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import dev.goodput.contract.Contract;

/**
 * What every event of a run is stamped with, and the contract settings each request needs.
 *
 * @param objectives the SLO objectives the generator's own summary judges requests by (the contract's, or
 *                   {@code --goodput}'s); the results' verdicts are the streams-app's
 */
public record RunIdentity(String contractId, String runId, String targetId, String gpuType, int gpuCount,
                          Contract.Decoding decoding, String qualityMetric, double qualityFloor,
                          Contract.Objectives objectives) {

    /** No objectives. */
    public RunIdentity(String contractId, String runId, String targetId, String gpuType, int gpuCount,
                       Contract.Decoding decoding, String qualityMetric, double qualityFloor) {
        this(contractId, runId, targetId, gpuType, gpuCount, decoding, qualityMetric, qualityFloor,
                new Contract.Objectives(Optional.empty(), Optional.empty(), Optional.empty()));
    }

    public static RunIdentity of(Contract c, String runId, String targetId) {
        return new RunIdentity(c.id(), runId, targetId, c.hardware().gpuType(), c.hardware().gpuCount(), c.decoding(),
                c.quality().metric(), c.quality().floor(), c.objectives());
    }

    /** The same run judged by other objectives (--goodput). */
    public RunIdentity withObjectives(Contract.Objectives o) {
        return new RunIdentity(contractId, runId, targetId, gpuType, gpuCount, decoding, qualityMetric, qualityFloor, o);
    }

    /** A new run id: the local start time to the second and 12 random bits, for runs started in one second. */
    public static String newRunId() {
        return LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT))
                + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xfffL);
    }
}

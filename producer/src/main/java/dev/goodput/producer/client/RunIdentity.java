package dev.goodput.producer.client;

import dev.goodput.contract.Contract;

/** What every event of a run is stamped with, and the contract settings each request needs. */
public record RunIdentity(String contractId, String runId, String targetId, String gpuType, int gpuCount,
                          Contract.Decoding decoding, String qualityMetric, double qualityFloor) {

    public static RunIdentity of(Contract c, String runId, String targetId) {
        return new RunIdentity(c.id(), runId, targetId, c.hardware().gpuType(), c.hardware().gpuCount(), c.decoding(),
                c.quality().metric(), c.quality().floor());
    }
}

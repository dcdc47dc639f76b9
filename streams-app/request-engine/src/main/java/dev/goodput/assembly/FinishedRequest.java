package dev.goodput.assembly;

import dev.goodput.definitions.WindowTotals;

/**
 * A finished request as its windows add it up ({@link PartialAggregates#add}).
 *
 * @param intendedUs   its intended send: it is live from there to its completion
 * @param holdUs       the earliest time it held the partition's watermark at (its first chunk, or its
 *                     completion): the windows from this one's on were kept open for it
 * @param requestLogUs the request topic's log clock when its request event came ({@link
 *                     dev.goodput.assembly.time.LogClock#NONE} if unknown): no watermark before passed it
 * @param cachedTokens of its prompt tokens, the ones its server said it served from its cache; -1 when it did not say (or not ok)
 * @param gapsUs       ITL gaps (ok requests only)
 * @param gapTimesUs   event time of each gap's later chunk
 */
public record FinishedRequest(String requestId, String contractId, String scenarioId, long completionUs, long intendedUs,
                              long holdUs, long requestLogUs, int promptTokens, int cachedTokens,
                              WindowTotals.Outcome outcome, long[] gapsUs, long[] gapTimesUs) {
}

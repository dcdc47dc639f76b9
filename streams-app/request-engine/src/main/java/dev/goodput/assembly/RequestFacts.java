package dev.goodput.assembly;

import dev.goodput.definitions.WindowTotals;

/**
 * What a request event says that its verdict and its windows need, as plain values (the adapter reads
 * them from its Avro record, {@link RequestRules#facts}). Times are event times in microseconds,
 * {@link #NONE} where the event has none.
 *
 * @param generationEndUs  where its generation ended ({@code Definitions.generationEnd}): its last chunk, or a later last choice
 * @param firstAnswerUs    its first answer (not reasoning) chunk
 * @param cachedTokens     of its prompt tokens, those its server said it served from its cache; -1 when it did not say
 * @param qualityPass      the generator's quality verdict (false when it gave none)
 * @param qualityScore     the quality score it was given, NaN when none
 */
public record RequestFacts(String contractId, String scenarioId, WindowTotals.Status status, String errorClass,
                           long intendedUs, long actualSendUs, long completionUs, long firstChunkUs, long generationEndUs,
                           long firstAnswerUs, int outputTokens, int contentChunks, int promptTokens, int cachedTokens,
                           boolean qualityPass, double qualityScore) {

    /** No such time. */
    public static final long NONE = Long.MIN_VALUE;

    /** Ok with its first and last chunk's times: the only requests whose latencies are measured. */
    public boolean measured() {
        return status == WindowTotals.Status.OK && firstChunkUs != NONE && generationEndUs != NONE;
    }
}

package dev.goodput.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import dev.goodput.contract.Contract;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** Each definition of the README's definitions table on hand-computed values. */
class DefinitionsTest {

    private static final Contract.Objectives SLO = Contract.Objectives.ofMillis(200.0, 50.0, 5000.0);

    @Test
    void latenciesFromTheIntendedSendTime() {
        assertThat(Definitions.ttft(1_000_000, 1_250_000)).isEqualTo(250_000);
        assertThat(Definitions.timeToFirstAnswer(1_000_000, 1_900_000)).isEqualTo(900_000);
        assertThat(Definitions.e2e(1_000_000, 3_000_000)).isEqualTo(2_000_000);
        assertThat(Definitions.dispatchLateness(1_000_000, 1_000_750)).isEqualTo(750);
    }

    @Test
    void tpotDividesDecodeTimeByTokensAfterTheFirst() {
        // E2E 2 s, TTFT 0.25 s, 8 tokens: 1.75 s / 7
        assertThat(Definitions.tpot(2_000_000, 250_000, 8)).isEqualTo(250_000.0);
        assertThat(Definitions.tpot(2_000_000, 250_000, 1)).isNaN();
        assertThat(Definitions.tpot(2_000_000, 250_000, 0)).isNaN();
        assertThat(Definitions.tpotTokenWeighted(3_000, 60)).isEqualTo(50.0);
        assertThat(Definitions.tpotTokenWeighted(0, 0)).isNaN();
    }

    @Test
    void generationEndsAtTheStreamsFinishSoTpotSpansTheEndOfSequenceStep() {
        // llama.cpp, a model that stops on EOS: 4 text chunks 10 ms apart from 100 ms, the EOS decode step,
        // then the finish chunk (no text) at 140 ms; completion_tokens 5 counts the EOS token
        final long end = Definitions.generationEnd(130_000, 140_000);
        assertThat(end).isEqualTo(140_000);
        final long ttft = Definitions.ttft(0, 100_000);
        assertThat(Definitions.tpot(Definitions.e2e(0, end), ttft, 5)).isEqualTo(10_000.0);
        // ending at the last text chunk would read 7.5 ms (3 gaps over 4), and 0 for a one-word answer of 2 tokens
        assertThat(Definitions.tpot(Definitions.e2e(0, 100_000), ttft, 2)).isZero();
        assertThat(Definitions.tpot(Definitions.e2e(0, Definitions.generationEnd(100_000, 112_000)), ttft, 2)).isEqualTo(12_000.0);
        // no finish recorded (spans, older events): the last content chunk
        assertThat(Definitions.generationEnd(130_000, -1)).isEqualTo(130_000);
    }

    @Test
    void itlIsEveryGapBetweenConsecutiveChunks() {
        assertThat(Definitions.itlGaps(new long[] {10, 25, 45, 46})).containsExactly(15, 20, 1);
        assertThat(Definitions.itlGaps(new long[] {10})).isEmpty();
        assertThat(Definitions.itlGaps(new long[] {})).isEmpty();
    }

    @Test
    void aMissingChunkMakesNoGapAcrossIt() {
        // chunk 2 of 5 missing (refused, or never come): gaps 0-1 and 3-4 only, dated by the later chunk
        final long[][] g = Definitions.itlGaps(new long[] {10, 25, 0, 60, 66}, new boolean[] {true, true, false, true, true}, 5);
        assertThat(g[0]).containsExactly(15, 6);
        assertThat(g[1]).containsExactly(25, 66);
        // only the first `chunks` indices count (state arrays may be longer than the request)
        assertThat(Definitions.itlGaps(new long[] {10, 25, 40, 0}, new boolean[] {true, true, true, true}, 3)[0]).containsExactly(15, 15);
        assertThat(Definitions.itlGaps(new long[] {10}, new boolean[] {true}, 1)[0]).isEmpty();
    }

    @Test
    void sloBoundsAreInclusiveAndEachObjectiveOptional() {
        assertThat(Definitions.failedObjectives(true, 200_000, 50_000.0, 5_000_000, SLO)).isEmpty();
        assertThat(Definitions.failedObjectives(true, 200_001, 50_000.1, 5_000_001, SLO))
                .containsExactly("ttft", "tpot", "e2el");
        assertThat(Definitions.failedObjectives(false, 1, 1, 1, SLO)).containsExactly("status");
        // no TPOT (one output token): judged on TTFT and E2E only
        assertThat(Definitions.failedObjectives(true, 100_000, Double.NaN, 100_000, SLO)).isEmpty();
        assertThat(Definitions.failedObjectives(true, 10_000_000, 10_000_000.0, 10_000_000, Contract.Objectives.NONE)).isEmpty();
        assertThat(Definitions.sloPass(List.of())).isTrue();
        assertThat(Definitions.sloPass(List.of("ttft"))).isFalse();
    }

    @Test
    void aRequestMissingChunksIsIncompleteAndNotGood() {
        assertThat(Definitions.missingChunks(64, 64)).isZero();
        assertThat(Definitions.missingChunks(64, 63)).isEqualTo(1);
        assertThat(Definitions.missingChunks(3, 5)).as("never negative").isZero();
        // within every objective on the chunks that remain, yet one was refused: not good, and said so
        final List<String> failed = Definitions.failedObjectives(true, 1, 200_000, 50_000.0, 5_000_000, SLO);
        assertThat(failed).containsExactly(Definitions.INCOMPLETE);
        assertThat(Definitions.good(Definitions.sloPass(failed), true)).isFalse();
        assertThat(Definitions.failedObjectives(true, 2, 200_001, 50_000.0, 5_000_000, SLO)).containsExactly("incomplete", "ttft");
        assertThat(Definitions.failedObjectives(true, 0, 200_000, 50_000.0, 5_000_000, SLO)).isEmpty();
        // a failed request is failed by its status, whatever its chunks
        assertThat(Definitions.failedObjectives(false, 3, 1, 1, 1, SLO)).containsExactly("status");
    }

    @Test
    void goodAndGoodput() {
        assertThat(Definitions.good(true, true)).isTrue();
        assertThat(Definitions.good(true, false)).isFalse();
        assertThat(Definitions.good(false, true)).isFalse();
        assertThat(Definitions.perSecond(85, 10)).isEqualTo(8.5);
        assertThat(Definitions.perSecond(85, 0)).isZero();
        assertThat(Definitions.goodFraction(85, 100)).isEqualTo(0.85);
        assertThat(Definitions.goodFraction(0, 0)).isZero();
        assertThat(Definitions.measuredSeconds(2_000_000, 17_500_000)).isEqualTo(15.5);
        // stopped 0.73 s before its warm-up was to end: nothing measured, not minus 0.73 s
        assertThat(Definitions.measuredSeconds(2_000_000, 1_270_000)).isZero();
        assertThat(Definitions.tokensPerGpuSecond(7_700, 10, 1)).isEqualTo(770.0);
        assertThat(Definitions.tokensPerGpuSecond(7_700, 10, 8)).isEqualTo(96.25);
    }

    @Test
    void windowsStartOnMultiplesOfTheirSize() {
        assertThat(Definitions.windowStart(25_000_000, 10_000_000)).isEqualTo(20_000_000);
        assertThat(Definitions.windowStart(20_000_000, 10_000_000)).isEqualTo(20_000_000);
        assertThat(Definitions.windowStart(-1, 10_000_000)).isEqualTo(-10_000_000);
    }

    @Test
    void sloFlagsInVllmSyntax() {
        final Contract.Objectives o = SloFlags.parse(List.of("ttft:200", "tpot:50", "e2el:5000"));
        assertThat(o).isEqualTo(SLO);
        assertThat(SloFlags.parse(List.of("ttft:0.5")).ttftUs()).contains(500L);
        assertThat(SloFlags.parse(List.of("tpot:50")).ttftUs()).isEmpty();
        assertThatThrownBy(() -> SloFlags.parse(List.of("itl:5"))).hasMessageContaining("unknown objective 'itl'");
        assertThatThrownBy(() -> SloFlags.parse(List.of("ttft=5"))).hasMessageContaining("name:milliseconds");
        assertThatThrownBy(() -> SloFlags.parse(List.of("ttft:-1"))).hasMessageContaining(">= 0");
    }

    @Test
    void histogramEncodingRoundTripsExactly() {
        final Histogram h = Histograms.token();
        for (long v = 1; v <= 100_000; v += 37) {
            Histograms.record(h, v);
        }
        Histograms.record(h, Long.MAX_VALUE);
        final Histogram back = Histograms.decode(Histograms.encode(h));
        assertThat(back).isEqualTo(h);
        assertThat(back.getMaxValue()).isEqualTo(h.highestEquivalentValue(Histograms.MAX_TOKEN_LATENCY_US));
    }

    @Test
    void theGeneratorIsSaturatedWhenItsLatenessIsAboveTheBoundAndAMaterialShareOfTtft() {
        // within the bound: never
        assertThat(Definitions.generatorSaturated(900, 1_000, 0)).isFalse();
        // above the bound, 2 ms against a 500 ms TTFT median (0.4 %): the target's latency, not the generator's
        assertThat(Definitions.generatorSaturated(2_000, 1_000, 500_000)).isFalse();
        // above the bound and above 5 % of a 10 ms median
        assertThat(Definitions.generatorSaturated(2_000, 1_000, 10_000)).isTrue();
        // the edge: 5 % exactly is not above it
        assertThat(Definitions.generatorSaturated(2_000, 1_000, 40_000)).isFalse();
        assertThat(Definitions.generatorSaturated(2_001, 1_000, 40_000)).isTrue();
        // nothing measured: the bound decides
        assertThat(Definitions.generatorSaturated(2_000, 1_000, 0)).isTrue();
    }

    @Test
    void aWindowOfFewerThanTenRequestsIsThin() {
        assertThat(Definitions.thinWindow(0)).isTrue();
        assertThat(Definitions.thinWindow(9)).isTrue();
        assertThat(Definitions.thinWindow(10)).isFalse();
        assertThat(Definitions.thinWindow(640)).isFalse();
    }

    @Test
    void theCacheHitRateWeighsRequestsByTheirPromptTokensAndAHitIsHalfThePromptCached() {
        // 1,091 of 1,093 cached, then 1 of 1,093 (llama.cpp's two requests), then 5 of 10
        assertThat(Definitions.cacheHitRate(1_091 + 1 + 5, 1_093 + 1_093 + 10)).isCloseTo(1_097.0 / 2_196, within(1e-12));
        assertThat(Definitions.cacheHitRate(0, 0)).isNaN();
        assertThat(Definitions.cacheHit(1_091, 1_093)).isTrue();
        assertThat(Definitions.cacheHit(1, 1_093)).isFalse();
        assertThat(Definitions.cacheHit(5, 10)).isTrue();
        assertThat(Definitions.cacheHit(4, 10)).isFalse();
        assertThat(Definitions.cacheHit(0, 0)).isFalse();
    }
}

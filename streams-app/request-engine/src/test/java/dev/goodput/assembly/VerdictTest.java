package dev.goodput.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.goodput.contract.Contract;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.WindowTotals;
import org.junit.jupiter.api.Test;

/** A finished request judged from its facts: which definitions apply, and what an unmeasured request gets. */
class VerdictTest {

    private static final Contract.Objectives TTFT_200MS = Contract.Objectives.ofMillis(200.0, null, null);

    /** Sent at 1 s, first chunk 150 ms later, done at 2 s with 11 tokens in 11 chunks. */
    private static RequestFacts ok(long firstChunkUs, boolean qualityPass, double score) {
        return new RequestFacts("c", "s", WindowTotals.Status.OK, null, 1_000_000, 1_002_000, 2_000_000, firstChunkUs,
                2_000_000, firstChunkUs + 10_000, 11, 11, 100, 40, qualityPass, score);
    }

    @Test
    void aMeasuredRequestIsJudgedByTheDefinitions() {
        final Verdict v = Verdict.of(ok(1_150_000, true, Double.NaN), 11, TTFT_200MS, null);
        assertThat(v.measured()).isTrue();
        assertThat(v.outcome().ttftUs()).isEqualTo(Definitions.ttft(1_000_000, 1_150_000));
        assertThat(v.outcome().ttfatUs()).isEqualTo(160_000);
        assertThat(v.outcome().e2eUs()).isEqualTo(1_000_000);
        assertThat(v.outcome().tpotUs()).isEqualTo(Definitions.tpot(1_000_000, 150_000, 11));
        assertThat(v.outcome().latenessUs()).isEqualTo(2_000);
        assertThat(v.failedObjectives()).isEmpty();
        assertThat(v.outcome().good()).isTrue();
    }

    @Test
    void aSlowFirstChunkOrAMissingChunkFailsTheObjectives() {
        assertThat(Verdict.of(ok(1_250_000, true, Double.NaN), 11, TTFT_200MS, null).failedObjectives()).containsExactly("ttft");
        final Verdict missing = Verdict.of(ok(1_150_000, true, Double.NaN), 10, TTFT_200MS, null);
        assertThat(missing.failedObjectives()).containsExactly(Definitions.INCOMPLETE);
        assertThat(missing.outcome().sloPass()).isFalse();
        assertThat(missing.outcome().good()).isFalse();
    }

    @Test
    void aQualityFloorReplacesTheGeneratorsVerdict() {
        assertThat(Verdict.of(ok(1_150_000, true, 0.4), 11, TTFT_200MS, 0.5).outcome().qualityPass()).isFalse();
        assertThat(Verdict.of(ok(1_150_000, false, 0.6), 11, TTFT_200MS, 0.5).outcome().qualityPass()).isTrue();
        assertThat(Verdict.of(ok(1_150_000, true, Double.NaN), 11, TTFT_200MS, 0.5).outcome().qualityPass()).isFalse();
    }

    @Test
    void aFailedOrUnfinishedRequestIsNotMeasured() {
        final RequestFacts failed = new RequestFacts("c", "s", WindowTotals.Status.ERROR, "http_500", 1_000_000, 1_000_000,
                1_500_000, RequestFacts.NONE, RequestFacts.NONE, RequestFacts.NONE, 0, 0, 100, -1, false, Double.NaN);
        final Verdict v = Verdict.of(failed, 0, TTFT_200MS, null);
        assertThat(v.measured()).isFalse();
        assertThat(v.outcome().ttftUs()).isEqualTo(Definitions.UNDEFINED);
        assertThat(v.outcome().e2eUs()).isEqualTo(Definitions.UNDEFINED);
        assertThat(v.outcome().tpotUs()).isNaN();
        assertThat(v.failedObjectives()).containsExactly("status");
        final RequestFacts noLastChunk = new RequestFacts("c", "s", WindowTotals.Status.OK, null, 1_000_000, 1_000_000,
                1_500_000, 1_100_000, RequestFacts.NONE, RequestFacts.NONE, 3, 3, 100, 10, true, Double.NaN);
        assertThat(Verdict.of(noLastChunk, 3, TTFT_200MS, null).measured()).isFalse();
    }
}

package dev.goodput.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The README's worked example and each cost formula on hand-computed values. */
class CostFormulasTest {

    @Test
    void theWorkedExample() {
        // $6.50/GPU-hour, 1400 tokens/s peak at 55% utilization = 770 tokens/s achieved
        final double compute = CostFormulas.computeCostPerMillion(6.50, 1, 770);
        assertThat(compute).isCloseTo(2.3449, within(0.00005));
        // 15% of requests miss the objective: per successful million, 2.3449 / 0.85
        final double hourly = 6.50;
        final long tokensIn10s = 7_700;
        final long goodTokens = Math.round(tokensIn10s * 0.85);
        assertThat(CostFormulas.costPerSuccessfulMillion(hourly, 0, 10, goodTokens)).isCloseTo(2.7587, within(0.00005));
        assertThat(CostFormulas.utilization(770, 1400.0)).isCloseTo(0.55, within(1e-12));
    }

    @Test
    void aScenarioIsChargedItsMeasuredSpanWhereverTheWindowsFall() {
        final long window = 10_000_000;
        final long length = 15_600_000;
        // the same 15.6 s scenario placed at every 100 ms offset: charged 15.6 s in all, so it costs the same
        for (long offset = 0; offset < window; offset += 100_000) {
            final long start = 1_000 * window + offset;
            double charged = 0;
            for (long w = Definitions.windowStart(start, window); w < start + length; w += window) {
                final double c = CostFormulas.chargedSeconds(w, w + window, start, start + length);
                assertThat(c).isBetween(0.0, 10.0);
                charged += c;
            }
            assertThat(charged).as("offset %d us", offset).isCloseTo(15.6, within(1e-9));
        }
        // a window the scenario fills is charged in full; two scenarios sharing a window split it, never more
        assertThat(CostFormulas.chargedSeconds(0, window, -5 * window, 5 * window)).isEqualTo(10.0);
        assertThat(CostFormulas.chargedSeconds(0, window, -window, 4_000_000)
                + CostFormulas.chargedSeconds(0, window, 4_000_000, 3 * window)).isEqualTo(10.0);
        // a window outside the span is charged nothing
        assertThat(CostFormulas.chargedSeconds(0, window, 2 * window, 3 * window)).isZero();
    }

    @Test
    void overheadsColdStartsAndHeadroomAreIncluded() {
        final CostFormulas.Rates p = new CostFormulas.Rates(6.5, 0.5, 0.1, 0.05, 0.02, 0.3, 0.05);
        // 6.5 x 2 GPUs + 0.5 + 0.1 + 0.05 + 0.02 + 0.3 + 0.05 GPU-h of cold starts at 6.5
        assertThat(CostFormulas.hourlyCost(p, 2)).isCloseTo(13 + 0.97 + 0.325, within(1e-9));
        // with 20% headroom, one hour of 1M good tokens costs hourly x 1.2
        assertThat(CostFormulas.costPerSuccessfulMillion(10, 0.2, 3600, 1_000_000)).isCloseTo(12.0, within(1e-9));
    }

    @Test
    void aSpanSumsItsSegmentsEachAtItsOwnPrice() {
        // 10 s at $10/h with 20% headroom, then 20 s at $13/h with none; 2 GPUs at $4 then $5
        final CostFormulas.Span span = CostFormulas.span(List.of(
                new CostFormulas.Segment(10, 10, 0.2, 4, 1_000, 800),
                new CostFormulas.Segment(20, 13, 0, 5, 3_000, 2_200)), 2);
        assertThat(span.seconds()).isEqualTo(30);
        assertThat(span.costUsd()).isCloseTo(10 * 1.2 * 10 / 3600 + 13 * 20.0 / 3600, within(1e-12));
        assertThat(span.gpuCostUsd()).isCloseTo((4 * 2 * 10 + 5 * 2 * 20) / 3600.0, within(1e-12));
        assertThat(span.outputTokensOk()).isEqualTo(4_000);
        assertThat(span.outputTokensGood()).isEqualTo(3_000);
        assertThat(CostFormulas.costPerSuccessfulMillion(span.costUsd(), span.outputTokensGood()))
                .isCloseTo(span.costUsd() / 3_000 * 1e6, within(1e-9));
        // the per-GPU-hour rate in force on average over the span: (4 x 10 + 5 x 20) / 30
        assertThat(CostFormulas.perGpuHour(span.gpuCostUsd(), 2, span.seconds())).isCloseTo(140.0 / 30, within(1e-12));
        assertThat(CostFormulas.hourlyRate(span.costUsd(), span.seconds())).isCloseTo(span.costUsd() * 120, within(1e-9));
        // one segment is the single-window formula
        assertThat(CostFormulas.span(List.of(new CostFormulas.Segment(10, 6.5, 0, 6.5, 7_700, 6_545)), 1).costUsd()
                / 6_545 * 1e6).isCloseTo(CostFormulas.costPerSuccessfulMillion(6.5, 0, 10, 6_545), within(1e-12));
    }

    @Test
    void nothingProducedIsNotZeroCost() {
        assertThat(CostFormulas.computeCostPerMillion(6.5, 1, 0)).isNaN();
        assertThat(CostFormulas.costPerSuccessfulMillion(6.5, 0, 10, 0)).isNaN();
        assertThat(CostFormulas.utilization(770, null)).isNaN();
        assertThat(CostFormulas.costPerSuccessfulMillion(1.0, 0)).isNaN();
        assertThat(CostFormulas.hourlyRate(1.0, 0)).isNaN();
    }

    /**
     * By hand: 1,000 good requests of 2,000 prompt tokens (1,500 of them cached) and 500 output tokens,
     * at $0.20 / $0.05 / $0.60 per million input, cached input and output tokens: 500,000 uncached
     * input tokens x $0.20 = $0.10, 1,500,000 cached x $0.05 = $0.075, 500,000 output x $0.60 = $0.30;
     * $0.475 in all, $0.95 per million output tokens.
     */
    @Test
    void retailCostPricesUncachedCachedAndOutputTokensApart() {
        final double cost = CostFormulas.retailCost(2_000_000, 1_500_000, 500_000, 0.20, 0.05, 0.60);
        assertThat(cost).isCloseTo(0.475, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(CostFormulas.costPerSuccessfulMillion(cost, 500_000)).isCloseTo(0.95, org.assertj.core.data.Offset.offset(1e-12));
        // without a cached-input price, cached tokens cost as input: $0.40 + $0.30
        assertThat(CostFormulas.retailCost(2_000_000, 1_500_000, 500_000, 0.20, 0.20, 0.60))
                .isCloseTo(0.70, org.assertj.core.data.Offset.offset(1e-12));
    }
}

package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.goodput.avro.GpuPrice;
import dev.goodput.testing.SampleRecords;
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
    void overheadsColdStartsAndHeadroomAreIncluded() {
        final GpuPrice p = SampleRecords.price();
        // 6.5 x 2 GPUs + 0.5 + 0.1 + 0.05 + 0.02 + 0.3 + 0.05 GPU-h of cold starts at 6.5
        assertThat(CostFormulas.hourlyCost(p, 2)).isCloseTo(13 + 0.97 + 0.325, within(1e-9));
        // with 20% headroom, one hour of 1M good tokens costs hourly x 1.2
        assertThat(CostFormulas.costPerSuccessfulMillion(10, 0.2, 3600, 1_000_000)).isCloseTo(12.0, within(1e-9));
    }

    @Test
    void peaksComeFromContractsThatConfigureOne() {
        final dev.goodput.contract.Contract c = dev.goodput.contract.ContractLoader.load(java.nio.file.Path.of("../config/contract.yaml"));
        final dev.goodput.contract.Contract none = dev.goodput.contract.ContractLoader.parse("none",
                c.canonicalJson().replace("\"peak_output_tokens_per_s\":1400", "\"peak_output_tokens_per_s\":null"));
        assertThat(SinkConfig.peaks(java.util.List.of(c, none))).containsExactly(java.util.Map.entry(c.id(), 1400.0));
    }

    @Test
    void nothingProducedIsNotZeroCost() {
        assertThat(CostFormulas.computeCostPerMillion(6.5, 1, 0)).isNaN();
        assertThat(CostFormulas.costPerSuccessfulMillion(6.5, 0, 10, 0)).isNaN();
        assertThat(CostFormulas.utilization(770, null)).isNaN();
    }
}

package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.metrics.CostFormulas;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

/** What the sink takes from its contracts and price records. */
class SinkConfigTest {

    @Test
    void peaksComeFromContractsThatConfigureOne() {
        final Contract c = ContractLoader.load(Path.of("../config/contract.yaml"));
        final Contract none = ContractLoader.parse("none",
                c.canonicalJson().replace("\"peak_output_tokens_per_s\":1400", "\"peak_output_tokens_per_s\":null"));
        assertThat(SinkConfig.peaks(List.of(c, none))).containsExactly(Map.entry(c.id(), 1400.0));
    }

    @Test
    void aPriceRecordsRatesAreEveryHourlyCost() {
        // 6.5 x 2 GPUs + 0.5 + 0.1 + 0.05 + 0.02 + 0.3 + 0.05 GPU-h of cold starts at 6.5
        assertThat(CostFormulas.hourlyCost(PricesFile.rates(SampleRecords.price()), 2)).isCloseTo(13 + 0.97 + 0.325, within(1e-9));
    }
}

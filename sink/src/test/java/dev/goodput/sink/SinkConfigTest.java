package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.goodput.config.ConfigException;
import dev.goodput.contract.Contract;
import dev.goodput.contract.load.ContractLoader;
import dev.goodput.definitions.CostFormulas;
import dev.goodput.testing.SampleRecords;
import dev.goodput.topics.Topics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

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

    @Test
    void settingsComeFromTheFileThenTheEnvironmentThenFlags(@TempDir Path dir) throws Exception {
        final Path file = dir.resolve("goodput.properties");
        Files.writeString(file, "rolling=5m\ntopic.cost=file.cost\ntopic.dlq=file.dlq\n");
        final SinkCommand cmd = CommandLine.populateCommand(new SinkCommand(), "--settings", file.toString(),
                "--topic", "dlq=flag.dlq");
        final SinkConfig c = SinkConfig.apply(SinkConfig.defaults(Map.of()), cmd.merged(Map.of("GOODPUT_ROLLING", "2m,1h")));
        assertThat(c.rollingSpans()).containsExactly(Duration.ofMinutes(2), Duration.ofHours(1));
        assertThat(c.costTopic()).isEqualTo("file.cost");
        assertThat(c.dlqTopic()).isEqualTo("flag.dlq");
        assertThat(c.pricesTopic()).isEqualTo(Topics.PRICES.name());
        assertThat(SinkConfig.defaults(Map.of()).rollingSpans())
                .containsExactly(Duration.ofMinutes(1), Duration.ofMinutes(15), Duration.ofHours(1));
        assertThatThrownBy(() -> SinkConfig.apply(SinkConfig.defaults(Map.of()),
                CommandLine.populateCommand(new SinkCommand(), "--rolling", "1m,0s").merged(Map.of())))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--rolling 0s: must be more than 0");
    }
}

package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.goodput.avro.GpuPrice;
import dev.goodput.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PricesFileTest {

    @Test
    void theShippedPricesLoad() {
        final List<GpuPrice> p = PricesFile.load(Path.of("../config/prices.yaml"));
        assertThat(p).hasSize(1);
        assertThat(p.get(0).getUsdPerGpuHour()).isEqualTo(6.5);
        assertThat(p.get(0).getPriceKey()).isEqualTo("example-cloud/h100-sxm");
        assertThat(p.get(0).getEffectiveFromUs().toString()).isEqualTo("2026-01-01T00:00:00Z");
    }

    @Test
    void badEntriesAreNamed(@TempDir Path dir) throws Exception {
        final Path f = dir.resolve("p.yaml");
        Files.writeString(f, "prices:\n"
                + "  - {price_key: a, provider: x, gpu_type: g, usd_per_gpu_hour: -1, currency: USD, effective_from: \"2026-01-01T00:00:00Z\", source: s}\n"
                + "  - {price_key: b, provider: x, gpu_type: g, usd_per_gpu_hour: 2, currency: XYZ, effective_from: \"2026-01-01T00:00:00Z\", source: s}\n"
                + "  - {price_key: c, provider: x, gpu_type: g, usd_per_gpu_hour: 2, currency: USD, effective_from: soon, source: s}\n"
                + "  - {price_key: d, provider: x, gpu_type: g, currency: USD, effective_from: \"2026-01-01T00:00:00Z\", source: s}\n");
        assertThatThrownBy(() -> PricesFile.load(f)).isInstanceOfSatisfying(ConfigException.class, e ->
                assertThat(e.problems()).containsExactly(
                        "prices[0].usd_per_gpu_hour: expected a number of USD per GPU-hour, 0 or more (negative_or_missing_price)",
                        "prices[1].currency: expected an ISO 4217 currency code (unknown_currency)",
                        "prices[2].effective_from: expected an ISO-8601 instant like 2026-01-01T00:00:00Z",
                        "prices[3].usd_per_gpu_hour: expected a number"));
    }

    @Test
    void twoVersionsOfOnePriceFromOneDateAreRefused(@TempDir Path dir) throws Exception {
        final Path f = dir.resolve("p.yaml");
        final String entry = "  - {price_key: a, provider: x, gpu_type: g, usd_per_gpu_hour: %s, currency: USD, "
                + "effective_from: \"2026-01-01T00:00:00Z\", source: s}\n";
        Files.writeString(f, "prices:\n" + String.format(entry, "2") + String.format(entry, "3"));
        assertThatThrownBy(() -> PricesFile.load(f)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("invalid price file " + f)
                .hasMessageContaining("a from 2026-01-01T00:00:00Z is given twice");
    }

    @Test
    void yamlErrorsNameTheFileLineAndColumn(@TempDir Path dir) throws Exception {
        final Path f = dir.resolve("p.yaml");
        Files.writeString(f, "prices:\n  - {price_key: a\n  bad: [\n");
        assertThatThrownBy(() -> PricesFile.load(f)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("invalid price file " + f)
                .hasMessageContaining(f + ":").hasMessageNotContaining("'string'");
    }
}

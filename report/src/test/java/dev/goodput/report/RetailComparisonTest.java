package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import dev.goodput.avro.RequestEvent;
import dev.goodput.config.ConfigException;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Good tokens bought at a dated retail list, by hand to the cent. */
class RetailComparisonTest {

    private static final Instant JAN = Instant.parse("2026-01-01T00:00:00Z");

    private static RequestEvent good(int prompt, Integer cached, int output, Instant done) {
        return RequestEvent.newBuilder(SampleRecords.request()).setPromptTokens(prompt).setCachedPromptTokens(cached)
                .setOutputTokens(output).setCompletionTimeUs(done).build();
    }

    private static RetailPrice price(Instant from, double in, Double cachedIn, double out) {
        return new RetailPrice("api/8b", "api", "8b", in, cachedIn, out, "USD", from, "test");
    }

    /**
     * Three good requests: 2,000 prompt tokens (1,500 cached) and 500 out, at $0.20 / $0.05 / $0.60:
     * $0.0001 + $0.000075 + $0.0003 = $0.000475; one said nothing of its cache, 1,000 in and 100 out:
     * $0.0002 + $0.00006 = $0.00026; one completed after the price doubled (2,000 in, 1,000 cached, 500
     * out at $0.40 / $0.10 / $1.20): $0.0004 + $0.0001 + $0.0006 = $0.0011. In all $0.001835 for 1,100
     * output tokens: $1.668182 per successful 1M.
     */
    @Test
    void eachGoodRequestIsPricedAtTheVersionInForceAtItsCompletion() {
        final List<RetailPrice> list = List.of(price(JAN, 0.20, 0.05, 0.60), price(JAN.plusSeconds(86_400), 0.40, 0.10, 1.20));
        final RetailComparison c = RetailComparison.row("s1", "api/8b", List.of(good(2_000, 1_500, 500, JAN.plusSeconds(60)),
                good(1_000, null, 100, JAN.plusSeconds(120)), good(2_000, 1_000, 500, JAN.plusSeconds(90_000))), list, 2.0);
        assertThat(c.retailUsd()).isCloseTo(0.001835, within(1e-12));
        assertThat(List.of(c.inputTokens(), c.cachedInputTokens(), c.outputTokens())).containsExactly(5_000L, 2_500L, 1_100L);
        assertThat(c.retailPerSuccessfulM()).isCloseTo(1.668182, within(1e-6));
        assertThat(c.json()).containsEntry("self_hosted_cost_per_successful_m_usd", 2.0).containsEntry("unpriced_requests", 0L);
        // another list prices the same tokens at its own figure: everything at the doubled version
        final RetailComparison doubled = RetailComparison.row("s1", "api/8b", List.of(good(2_000, 1_500, 500, JAN.plusSeconds(60))),
                List.of(price(JAN, 0.40, 0.10, 1.20)), null);
        assertThat(doubled.retailUsd()).isCloseTo(0.00095, within(1e-12));
    }

    @Test
    void aRequestBeforeAnyVersionIsUnpricedAndCounted() {
        final RetailComparison c = RetailComparison.row("s1", "api/8b", List.of(good(100, 0, 10, JAN.minusSeconds(1))),
                List.of(price(JAN, 0.2, null, 0.6)), null);
        assertThat(c.unpriced()).isOne();
        assertThat(c.retailPerSuccessfulM()).isNull();
        // without a cached-input price, cached tokens cost as input
        assertThat(price(JAN, 0.2, null, 0.6).cachedInputPrice()).isEqualTo(0.2);
    }

    @Test
    void thePricesFilesRetailListIsCheckedAndDated(@TempDir Path dir) throws Exception {
        final Path f = dir.resolve("prices.yaml");
        Files.writeString(f, "prices: []\nretail:\n  - {retail_key: a/b, provider: a, model: b, usd_per_m_input_tokens: 0.2,"
                + " usd_per_m_output_tokens: 0.6, currency: USD, effective_from: \"2026-01-01T00:00:00Z\", source: s}\n");
        assertThat(RetailPrice.load(f)).singleElement().satisfies(p -> {
            assertThat(p.usdPerMCachedInput()).isNull();
            assertThat(p.effectiveFrom()).isEqualTo(JAN);
        });
        Files.writeString(f, "retail:\n  - {retail_key: a/b, provider: a, model: b, usd_per_m_input_tokens: -1,"
                + " usd_per_m_output_tokens: 0.6, currency: EUR, effective_from: \"2026-01-01T00:00:00Z\", source: s}\n");
        assertThatThrownBy(() -> RetailPrice.load(f)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("retail[0].usd_per_m_input_tokens");
        Files.writeString(f, "prices: []\n");
        assertThat(RetailPrice.load(f)).isEmpty();
        assertThat(RetailPrice.load(Path.of("../config/prices.yaml"))).isNotEmpty();
    }
}

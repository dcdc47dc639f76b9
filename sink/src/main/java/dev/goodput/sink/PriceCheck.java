package dev.goodput.sink;

import java.util.Currency;
import java.util.Optional;

import dev.goodput.avro.GpuPrice;

/** Why a price record cannot be used, if it cannot: the reason goes into the DLQ headers. */
public final class PriceCheck {
    private PriceCheck() {
    }

    public static Optional<String> problem(GpuPrice p) {
        if (p.getPriceKey() == null || p.getPriceKey().isBlank()) {
            return Optional.of("missing_price_key");
        }
        if (Double.isNaN(p.getUsdPerGpuHour()) || p.getUsdPerGpuHour() < 0) {
            return Optional.of("negative_or_missing_price");
        }
        for (double d : new double[] {p.getCpuUsdPerHour(), p.getStorageUsdPerHour(), p.getNetworkUsdPerHour(),
            p.getObservabilityUsdPerHour(), p.getSupportUsdPerHour(), p.getColdStartGpuHoursPerHour(),
            p.getWarmHeadroomFraction()}) {
            if (Double.isNaN(d) || d < 0) {
                return Optional.of("negative_overhead");
            }
        }
        try {
            Currency.getInstance(p.getCurrency());
        } catch (IllegalArgumentException | NullPointerException e) {
            return Optional.of("unknown_currency");
        }
        if (!"USD".equals(p.getCurrency())) {
            return Optional.of("unsupported_currency");
        }
        if (p.getEffectiveFromUs() == null || p.getEffectiveFromUs().toEpochMilli() <= 0) {
            return Optional.of("no_effective_date");
        }
        return Optional.empty();
    }
}

package dev.goodput.sink;

import java.util.Currency;
import java.util.Optional;

import dev.goodput.avro.GpuPrice;

/** Why a price record cannot be used, if it cannot: the reason goes into the DLQ headers. */
public final class PriceCheck {
    private PriceCheck() {
    }

    /** The field a {@link #problem} reason is about. */
    public static String field(String reason) {
        return switch (reason) {
            case "missing_price_key" -> "price_key";
            case "negative_or_missing_price" -> "usd_per_gpu_hour";
            case "negative_overhead" -> "cpu/storage/network/observability/support_usd_per_hour, cold_start_gpu_hours_per_hour, warm_headroom_fraction";
            case "unknown_currency", "unsupported_currency" -> "currency";
            case "no_effective_date" -> "effective_from";
            default -> "?";
        };
    }

    /** What a {@link #problem} reason's field must hold. */
    public static String expected(String reason) {
        return switch (reason) {
            case "missing_price_key" -> "expected a non-empty key";
            case "negative_or_missing_price" -> "expected a number of USD per GPU-hour, 0 or more";
            case "negative_overhead" -> "each overhead must be a number, 0 or more";
            case "unknown_currency" -> "expected an ISO 4217 currency code";
            case "unsupported_currency" -> "only USD is supported";
            case "no_effective_date" -> "expected an instant after 1970, like 2026-01-01T00:00:00Z";
            default -> reason;
        };
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

package dev.goodput.sink;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.GpuPrice;
import dev.goodput.config.ConfigException;
import dev.goodput.config.Yamls;
import dev.goodput.definitions.CostFormulas;

/** Reads {@code config/prices.yaml}; every problem is reported with its entry and field. */
public final class PricesFile {
    private PricesFile() {
    }

    private static final String KIND = "price file";

    /** The rates of a price record, as the cost formulas take them. */
    public static CostFormulas.Rates rates(GpuPrice p) {
        return new CostFormulas.Rates(p.getUsdPerGpuHour(), p.getCpuUsdPerHour(), p.getStorageUsdPerHour(),
                p.getNetworkUsdPerHour(), p.getObservabilityUsdPerHour(), p.getSupportUsdPerHour(),
                p.getColdStartGpuHoursPerHour());
    }

    public static List<GpuPrice> load(Path file) {
        final Object tree = Yamls.load(file, KIND);
        if (!(tree instanceof Map<?, ?> m) || !(m.get("prices") instanceof List<?> list)) {
            throw new ConfigException(KIND, file.toString(), List.of("prices: expected a list of price entries"));
        }
        final List<String> problems = new ArrayList<>();
        final List<GpuPrice> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            final String at = "prices[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> e)) {
                problems.add(at + ": expected a map");
                continue;
            }
            try {
                final GpuPrice p = GpuPrice.newBuilder()
                        .setPriceKey(Yamls.string(e, "price_key", at)).setProvider(Yamls.string(e, "provider", at))
                        .setGpuType(Yamls.string(e, "gpu_type", at)).setUsdPerGpuHour(num(e, "usd_per_gpu_hour", at, true))
                        .setCurrency(Yamls.string(e, "currency", at)).setEffectiveFromUs(Yamls.effectiveFrom(e, at))
                        .setSource(Yamls.string(e, "source", at))
                        .setCpuUsdPerHour(num(e, "cpu_usd_per_hour", at, false))
                        .setStorageUsdPerHour(num(e, "storage_usd_per_hour", at, false))
                        .setNetworkUsdPerHour(num(e, "network_usd_per_hour", at, false))
                        .setObservabilityUsdPerHour(num(e, "observability_usd_per_hour", at, false))
                        .setSupportUsdPerHour(num(e, "support_usd_per_hour", at, false))
                        .setColdStartGpuHoursPerHour(num(e, "cold_start_gpu_hours_per_hour", at, false))
                        .setWarmHeadroomFraction(num(e, "warm_headroom_fraction", at, false)).build();
                PriceCheck.problem(p).ifPresentOrElse(r -> problems.add(at + "." + PriceCheck.field(r) + ": "
                        + PriceCheck.expected(r) + " (" + r + ")"), () -> out.add(p));
            } catch (IllegalArgumentException ex) {
                problems.add(ex.getMessage());
            }
        }
        // two versions of one price from one date: which applies would depend on the order they were read
        final Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < out.size(); i++) {
            final String key = out.get(i).getPriceKey() + " from " + out.get(i).getEffectiveFromUs();
            final Integer first = seen.putIfAbsent(key, i);
            if (first != null) {
                problems.add("prices: " + key + " is given twice (entries " + first + " and " + i
                        + " of the valid ones): keep one, or give the later its own effective_from");
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(KIND, file.toString(), problems);
        }
        return out;
    }


    private static double num(Map<?, ?> e, String k, String at, boolean required) {
        final Object v = e.get(k);
        if (v == null && !required) {
            return 0;
        }
        if (!(v instanceof Number n)) {
            throw new IllegalArgumentException(at + "." + k + ": expected a number");
        }
        return n.doubleValue();
    }
}

package dev.goodput.report;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.goodput.config.ConfigException;
import dev.goodput.config.Yamls;

/**
 * One dated version of a retail token price (what buying the tokens from an API costs): USD per
 * million input, cached input and output tokens, with its provider, model, source and the date it
 * took effect. A price change is a new version, never an edit, as with GPU prices; a request is
 * priced at the version of its key in force at its completion. The prices file's {@code retail}
 * list holds them.
 *
 * @param usdPerMCachedInput null when the list names no cached-input price: cached tokens then cost as input
 */
public record RetailPrice(String retailKey, String provider, String model, double usdPerMInput, Double usdPerMCachedInput,
                          double usdPerMOutput, String currency, Instant effectiveFrom, String source) {

    private static final String KIND = "price file";

    /** The cached-input price in force: the list's, or the input price when it names none. */
    public double cachedInputPrice() {
        return usdPerMCachedInput != null ? usdPerMCachedInput : usdPerMInput;
    }

    /** As assumptions.json lists it. */
    public Map<String, Object> json() {
        final Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("retail_key", retailKey);
        m.put("provider", provider);
        m.put("model", model);
        m.put("usd_per_m_input_tokens", usdPerMInput);
        m.put("usd_per_m_cached_input_tokens", cachedInputPrice());
        m.put("usd_per_m_output_tokens", usdPerMOutput);
        m.put("currency", currency);
        m.put("effective_from", effectiveFrom.toString());
        m.put("source", source);
        return m;
    }

    /** The retail versions of a prices file ({@code retail:}); none when it has no such list. */
    public static List<RetailPrice> load(Path file) {
        final Object tree = Yamls.load(file, KIND);
        if (!(tree instanceof Map<?, ?> m) || m.get("retail") == null) {
            return List.of();
        }
        if (!(m.get("retail") instanceof List<?> list)) {
            throw new ConfigException(KIND, file.toString(), List.of("retail: expected a list of retail token prices"));
        }
        final List<String> problems = new ArrayList<>();
        final List<RetailPrice> out = new ArrayList<>();
        final Set<String> seen = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            final String at = "retail[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> e)) {
                problems.add(at + ": expected a map");
                continue;
            }
            try {
                final RetailPrice p = new RetailPrice(Yamls.string(e, "retail_key", at), Yamls.string(e, "provider", at),
                        Yamls.string(e, "model", at), usd(e, "usd_per_m_input_tokens", at), e.get("usd_per_m_cached_input_tokens") == null ? null
                        : usd(e, "usd_per_m_cached_input_tokens", at), usd(e, "usd_per_m_output_tokens", at),
                        Yamls.string(e, "currency", at), Yamls.effectiveFrom(e, at), Yamls.string(e, "source", at));
                if (!"USD".equals(p.currency())) {
                    problems.add(at + ".currency: only USD is priced (got " + p.currency() + ")");
                } else if (!seen.add(p.retailKey() + " from " + p.effectiveFrom())) {
                    problems.add(at + ": " + p.retailKey() + " from " + p.effectiveFrom() + " is given twice: keep one, or give the"
                            + " later its own effective_from");
                } else {
                    out.add(p);
                }
            } catch (IllegalArgumentException ex) {
                problems.add(ex.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(KIND, file.toString(), problems);
        }
        out.sort(Comparator.comparing(RetailPrice::retailKey).thenComparing(RetailPrice::effectiveFrom));
        return List.copyOf(out);
    }

    /** The version of {@code key} in force at {@code at}: the latest that took effect by then, or null. */
    public static RetailPrice inForce(List<RetailPrice> versions, String key, Instant at) {
        RetailPrice found = null;
        for (RetailPrice p : versions) {
            if (p.retailKey().equals(key) && !p.effectiveFrom().isAfter(at)
                    && (found == null || p.effectiveFrom().isAfter(found.effectiveFrom()))) {
                found = p;
            }
        }
        return found;
    }


    private static double usd(Map<?, ?> e, String k, String at) {
        if (!(e.get(k) instanceof Number n) || n.doubleValue() < 0 || Double.isNaN(n.doubleValue())) {
            throw new IllegalArgumentException(at + "." + k + ": expected USD per million tokens, 0 or more");
        }
        return n.doubleValue();
    }
}

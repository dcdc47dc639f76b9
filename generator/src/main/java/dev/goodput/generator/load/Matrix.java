package dev.goodput.generator.load;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.goodput.config.ConfigException;
import dev.goodput.config.Yamls;

/**
 * The load matrix file ({@code config/scenarios.yaml}): every combination of prompt length, output
 * length, load and cache state is one scenario, run one after another for {@code duration_s} each.
 */
public record Matrix(List<Scenario> scenarios, double durationS) {

    private static final Set<String> FIELDS = Set.of("prompt_tokens", "output_tokens", "rates_rps", "concurrency",
            "cache", "duration_s");

    private static final String KIND = "load matrix";

    public static Matrix load(Path file) {
        final Object tree = Yamls.load(file, KIND);
        if (!(tree instanceof Map<?, ?> m)) {
            throw new ConfigException(KIND, file.toString(), List.of("expected a map with fields " + FIELDS));
        }
        final List<String> problems = new ArrayList<>();
        for (Object k : m.keySet()) {
            if (!FIELDS.contains(String.valueOf(k))) {
                problems.add(k + ": unknown field (expected fields: " + FIELDS + ")");
            }
        }
        final List<Integer> prompts = ints(m, "prompt_tokens", problems, true);
        final List<Integer> outputs = ints(m, "output_tokens", problems, true);
        final List<Double> rates = doubles(m, "rates_rps", problems);
        final List<Integer> conc = ints(m, "concurrency", problems, false);
        final List<String> caches = strings(m, "cache", problems);
        if (rates.isEmpty() == conc.isEmpty()) {
            problems.add("rates_rps / concurrency: give exactly one of them (open loop at rates, or closed loop at concurrencies)");
        }
        final Object d = m.get("duration_s");
        if (!(d instanceof Number n) || n.doubleValue() <= 0) {
            problems.add("duration_s: expected a number > 0 (seconds per scenario, after warm-up), got " + d);
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(KIND, file.toString(), problems);
        }
        final List<Scenario> out = new ArrayList<>();
        for (int p : prompts) {
            for (int o : outputs) {
                for (String c : caches) {
                    for (Double r : rates) {
                        out.add(new Scenario(p, o, r, null, c));
                    }
                    for (Integer n : conc) {
                        out.add(new Scenario(p, o, null, n, c));
                    }
                }
            }
        }
        return new Matrix(List.copyOf(out), ((Number) d).doubleValue());
    }

    private static List<Integer> ints(Map<?, ?> m, String key, List<String> problems, boolean required) {
        final Object v = m.get(key);
        if (v == null) {
            if (required) {
                problems.add(key + ": missing (expected a list of whole numbers >= 1)");
            }
            return List.of();
        }
        final List<Integer> out = new ArrayList<>();
        for (Object o : v instanceof List<?> l ? l : List.of(v)) {
            if (o instanceof Integer i && i >= 1) {
                out.add(i);
            } else {
                problems.add(key + ": expected whole numbers >= 1, got " + o);
            }
        }
        return out;
    }

    private static List<Double> doubles(Map<?, ?> m, String key, List<String> problems) {
        final Object v = m.get(key);
        if (v == null) {
            return List.of();
        }
        final List<Double> out = new ArrayList<>();
        for (Object o : v instanceof List<?> l ? l : List.of(v)) {
            if (o instanceof Number n && n.doubleValue() > 0) {
                out.add(n.doubleValue());
            } else {
                problems.add(key + ": expected numbers > 0, got " + o);
            }
        }
        return out;
    }

    private static List<String> strings(Map<?, ?> m, String key, List<String> problems) {
        final Object v = m.get(key);
        if (v == null) {
            problems.add(key + ": missing (expected a list of cold / warm)");
            return List.of();
        }
        final List<String> out = new ArrayList<>();
        for (Object o : v instanceof List<?> l ? l : List.of(v)) {
            if ("cold".equals(o) || "warm".equals(o)) {
                out.add((String) o);
            } else {
                problems.add(key + ": expected cold or warm, got " + o);
            }
        }
        return out;
    }
}

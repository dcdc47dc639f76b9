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
 * length, load and cache condition is one scenario, run one after another for {@code duration_s}
 * each. Session scenarios ({@code turnsN}) take {@code think_time_s} and {@code context_tokens}.
 */
public record Matrix(List<Scenario> scenarios, double durationS) {

    private static final Set<String> FIELDS = Set.of("prompt_tokens", "output_tokens", "rates_rps", "concurrency",
            "cache", "duration_s", "think_time_s", "context_tokens");

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
        final double think = number(m, "think_time_s", Scenario.DEFAULT_THINK_S, 0, problems);
        final double context = number(m, "context_tokens", Scenario.DEFAULT_CONTEXT_TOKENS, 1, problems);
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
                    final Scenario.Sessions sessions = Scenario.sessionsOf(c, think, (int) context);
                    for (Double r : rates) {
                        out.add(new Scenario(p, o, r, null, c, sessions));
                    }
                    for (Integer n : conc) {
                        out.add(new Scenario(p, o, null, n, c, sessions));
                    }
                }
            }
        }
        return new Matrix(List.copyOf(out), ((Number) d).doubleValue());
    }

    /** An optional number of at least {@code min}, or its default. */
    private static double number(Map<?, ?> m, String key, double fallback, double min, List<String> problems) {
        final Object v = m.get(key);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Number n && n.doubleValue() >= min) {
            return n.doubleValue();
        }
        problems.add(key + ": expected a number >= " + (min == 0 ? "0" : "1") + ", got " + v);
        return fallback;
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
            problems.add(key + ": missing (expected a list of cold, warm, sharedN or turnsN)");
            return List.of();
        }
        final List<String> out = new ArrayList<>();
        for (Object o : v instanceof List<?> l ? l : List.of(v)) {
            if (o instanceof String c && Scenario.knownCache(c)) {
                out.add(c);
            } else {
                problems.add(key + ": expected cold, warm, sharedN (N % of each prompt one common prefix, 1-99) or turnsN"
                        + " (sessions of N turns, 2-99), got " + o);
            }
        }
        return out;
    }
}

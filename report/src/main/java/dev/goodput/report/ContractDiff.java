package dev.goodput.report;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Two contracts' differences, field by field, each judged: a difference in what the system under
 * test is (hardware, runtime, batching, precision, quantization, model revision) is what a
 * comparison is for; a difference in the workload or in how results are judged (model, tokenizer,
 * corpus, output cap, decoding, cache state, arrival pattern, quality rule, latency objectives)
 * makes the comparison unfair.
 */
public final class ContractDiff {

    /** One field that differs. */
    public record Difference(String field, Object a, Object b, boolean unfair, String why) {
    }

    /** Field-path prefixes whose difference makes results incomparable, with the reason shown to the user. */
    static final Map<String, String> UNFAIR = new LinkedHashMap<>();

    static {
        UNFAIR.put("model.name", "a different model does different work");
        UNFAIR.put("tokenizer.", "token counts and prompt sizes are measured differently");
        UNFAIR.put("prompt_corpus.sha256", "different prompts and expected answers");
        UNFAIR.put("output_cap_tokens", "requests may generate different numbers of tokens");
        UNFAIR.put("decoding.", "different sampling changes output length and quality");
        UNFAIR.put("cache_state", "prefix-cache hits change TTFT");
        UNFAIR.put("concurrency_pattern.", "a different offered load");
        UNFAIR.put("quality.", "good requests are judged by a different quality rule");
        UNFAIR.put("latency_objectives.", "goodput is judged against different objectives");
    }

    private ContractDiff() {
    }

    /** Every differing leaf of two canonical contract maps, in field order. */
    public static List<Difference> of(Map<String, Object> a, Map<String, Object> b) {
        final Map<String, Object> fa = flatten(a);
        final Map<String, Object> fb = flatten(b);
        final List<Difference> out = new ArrayList<>();
        final TreeSet<String> fields = new TreeSet<>(fa.keySet());
        fields.addAll(fb.keySet());
        for (String f : fields) {
            final Object va = fa.get(f);
            final Object vb = fb.get(f);
            if (!sameValue(va, vb)) {
                final String why = UNFAIR.entrySet().stream().filter(e -> f.equals(e.getKey()) || e.getKey().endsWith(".") && f.startsWith(e.getKey()))
                        .map(Map.Entry::getValue).findFirst().orElse(null);
                out.add(new Difference(f, va, vb, why != null, why != null ? why : "the system under test"));
            }
        }
        return out;
    }

    private static boolean sameValue(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return new BigDecimal(x.toString()).compareTo(new BigDecimal(y.toString())) == 0;
        }
        return Objects.equals(a, b);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> flatten(Map<String, Object> m) {
        final Map<String, Object> out = new TreeMap<>();
        m.forEach((k, v) -> {
            if (v instanceof Map<?, ?> nested) {
                flatten((Map<String, Object>) nested).forEach((k2, v2) -> out.put(k + "." + k2, v2));
            } else {
                out.put(k, v);
            }
        });
        return out;
    }
}

package dev.goodput.contract.load;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A tiny declarative schema for YAML trees: validates a value at a path, collects every problem
 * (field path, what is expected, what was found) and returns the value in canonical form: maps
 * sorted by key with every declared field present (absent optional fields as null), numbers as
 * BigDecimal without trailing zeros. Canonical trees of equal contracts are equal whatever the
 * file's key order or formatting.
 */
abstract class Rule {

    abstract Object check(String path, Object value, List<String> problems);

    abstract String expected();

    boolean optional() {
        return false;
    }

    static Rule string() {
        return new Rule() {
            @Override
            Object check(String path, Object v, List<String> problems) {
                if (v instanceof String s && !s.isBlank()) {
                    return s;
                }
                problems.add(path + ": expected " + expected() + ", got " + describe(v));
                return null;
            }

            @Override
            String expected() {
                return "a non-empty string";
            }
        };
    }

    static Rule matching(String regex, String what) {
        final Pattern p = Pattern.compile(regex);
        return new Rule() {
            @Override
            Object check(String path, Object v, List<String> problems) {
                if (v instanceof String s && p.matcher(s).matches()) {
                    return s;
                }
                problems.add(path + ": expected " + expected() + ", got " + describe(v));
                return null;
            }

            @Override
            String expected() {
                return what;
            }
        };
    }

    static Rule oneOf(String... values) {
        final List<String> allowed = List.of(values);
        return new Rule() {
            @Override
            Object check(String path, Object v, List<String> problems) {
                if (v instanceof String s && allowed.contains(s)) {
                    return s;
                }
                problems.add(path + ": expected " + expected() + ", got " + describe(v));
                return null;
            }

            @Override
            String expected() {
                return "one of " + allowed;
            }
        };
    }

    static Rule number(double min, double max) {
        return new Rule() {
            @Override
            Object check(String path, Object v, List<String> problems) {
                if (v instanceof Number n && !(v instanceof Double d && (d.isNaN() || d.isInfinite()))) {
                    final BigDecimal b = new BigDecimal(n.toString());
                    if (b.doubleValue() >= min && b.doubleValue() <= max) {
                        return canonical(b);
                    }
                }
                problems.add(path + ": expected " + expected() + ", got " + describe(v));
                return null;
            }

            @Override
            String expected() {
                return "a number from " + fmt(min) + " to " + fmt(max);
            }
        };
    }

    static Rule integer(long min, long max) {
        return new Rule() {
            @Override
            Object check(String path, Object v, List<String> problems) {
                if ((v instanceof Integer || v instanceof Long || v instanceof BigInteger)
                        && ((Number) v).longValue() >= min && ((Number) v).longValue() <= max) {
                    return canonical(new BigDecimal(v.toString()));
                }
                problems.add(path + ": expected " + expected() + ", got " + describe(v));
                return null;
            }

            @Override
            String expected() {
                return "a whole number from " + min + " to " + max;
            }
        };
    }

    static Rule bool() {
        return new Rule() {
            @Override
            Object check(String path, Object v, List<String> problems) {
                if (v instanceof Boolean) {
                    return v;
                }
                problems.add(path + ": expected " + expected() + ", got " + describe(v));
                return null;
            }

            @Override
            String expected() {
                return "true or false";
            }
        };
    }

    /** The rule, or null (absent or written as null) allowed. */
    static Rule optional(Rule inner) {
        return new Rule() {
            @Override
            Object check(String path, Object v, List<String> problems) {
                return v == null ? null : inner.check(path, v, problems);
            }

            @Override
            String expected() {
                return inner.expected() + " or null";
            }

            @Override
            boolean optional() {
                return true;
            }
        };
    }

    /** A map with exactly these fields (order kept for messages). */
    static Rule object(Object... nameRulePairs) {
        final Map<String, Rule> fields = new LinkedHashMap<>();
        for (int i = 0; i < nameRulePairs.length; i += 2) {
            fields.put((String) nameRulePairs[i], (Rule) nameRulePairs[i + 1]);
        }
        return new Rule() {
            @Override
            Object check(String path, Object v, List<String> problems) {
                if (!(v instanceof Map<?, ?> m)) {
                    problems.add(path + ": expected " + expected() + ", got " + describe(v));
                    return null;
                }
                final Map<String, Object> out = new TreeMap<>();
                for (Object k : m.keySet()) {
                    if (!(k instanceof String) || !fields.containsKey(k)) {
                        problems.add(join(path, String.valueOf(k)) + ": unknown field (expected fields: "
                                + String.join(", ", fields.keySet()) + ")");
                    }
                }
                for (Map.Entry<String, Rule> f : fields.entrySet()) {
                    final String p = join(path, f.getKey());
                    if (!m.containsKey(f.getKey()) && !f.getValue().optional()) {
                        problems.add(p + ": missing (expected " + f.getValue().expected() + ")");
                        continue;
                    }
                    out.put(f.getKey(), f.getValue().check(p, m.get(f.getKey()), problems));
                }
                return out;
            }

            @Override
            String expected() {
                return "a map with fields " + String.join(", ", fields.keySet());
            }
        };
    }

    private static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static BigDecimal canonical(BigDecimal b) {
        final BigDecimal s = b.stripTrailingZeros();
        return s.scale() < 0 ? s.setScale(0) : s;
    }

    private static String fmt(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    static String describe(Object v) {
        if (v == null) {
            return "nothing";
        }
        if (v instanceof String s) {
            return "\"" + s + "\" (a string)";
        }
        if (v instanceof Map) {
            return "a map";
        }
        if (v instanceof List) {
            return "a list";
        }
        return v + " (" + v.getClass().getSimpleName().toLowerCase(Locale.ROOT) + ")";
    }

    static List<String> newProblems() {
        return new ArrayList<>();
    }
}

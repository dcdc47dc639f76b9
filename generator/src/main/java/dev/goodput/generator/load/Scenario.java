package dev.goodput.generator.load;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One cell of the load matrix: prompt length x output length x load (a rate or a concurrency) x
 * cache state. Its id, for example {@code p512-o128-r20-cold} or {@code p512-o128-c32-warm}, is on
 * every event of the cell.
 */
public record Scenario(int promptTokens, int outputTokens, Double rateRps, Integer concurrency, String cache) {

    private static final Pattern ID = Pattern.compile("p(\\d+)-o(\\d+)-(?:r([0-9.]+)|c(\\d+))-(cold|warm)");

    public Scenario {
        if (promptTokens < 1 || outputTokens < 1) {
            throw new IllegalArgumentException("prompt and output tokens must be >= 1");
        }
        if ((rateRps == null) == (concurrency == null)) {
            throw new IllegalArgumentException("a scenario has either a rate or a concurrency");
        }
        if (!"cold".equals(cache) && !"warm".equals(cache)) {
            throw new IllegalArgumentException("cache must be cold or warm, got " + cache);
        }
    }

    public String id() {
        return "p" + promptTokens + "-o" + outputTokens + "-"
                + (rateRps != null ? "r" + number(rateRps) : "c" + concurrency) + "-" + cache;
    }

    /**
     * The one rule for output lengths: the contract's {@code output_cap_tokens} is the ceiling. A
     * scenario asks for its own length (sent as {@code max_tokens} and recorded on every request
     * event), which may be lower, never higher; one above it is refused before the run.
     *
     * @throws IllegalArgumentException naming the first scenario above the cap
     */
    public static void withinCap(List<Scenario> scenarios, int outputCapTokens) {
        for (Scenario s : scenarios) {
            if (s.outputTokens() > outputCapTokens) {
                throw new IllegalArgumentException("scenario " + s.id() + " asks for " + s.outputTokens()
                        + " output tokens, above the contract's output_cap_tokens " + outputCapTokens
                        + " (a scenario may ask for fewer, never more: lower its output_tokens or raise the cap)");
            }
        }
    }

    public boolean closedLoop() {
        return concurrency != null;
    }

    /** Parses an id such as {@code p128-o64-r10-cold}. */
    public static Scenario parse(String id) {
        final Matcher m = ID.matcher(id);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + id + "' is not a scenario id (like p128-o64-r10-cold or p128-o64-c8-warm)");
        }
        return new Scenario(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                m.group(3) != null ? Double.parseDouble(m.group(3)) : null,
                m.group(4) != null ? Integer.parseInt(m.group(4)) : null, m.group(5));
    }

    private static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
    }
}

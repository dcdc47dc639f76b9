package dev.goodput.generator.load;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One cell of the load matrix: prompt length x output length x load (a rate or a concurrency) x
 * cache condition. Its id, for example {@code p512-o128-r20-cold}, {@code p512-o128-c32-shared90} or
 * {@code p256-o64-c8-turns4}, is on every event of the cell.
 *
 * <p>The cache conditions: {@code cold}, every prompt's filler its own (a prefix cache misses);
 * {@code warm}, one filler for the whole scenario; {@code sharedN}, the first N % of every prompt's
 * tokens one prefix common to the scenario's requests, the rest their own; {@code turnsN}, sessions
 * of N turns, each turn's prompt the session's history (its earlier prompts and the answers the
 * server gave) and a new question of {@code promptTokens}, its load the sessions in flight (closed
 * loop) or session arrivals per second (open loop).
 *
 * @param sessions how the sessions of a {@code turnsN} scenario go; null for the other conditions
 */
public record Scenario(int promptTokens, int outputTokens, Double rateRps, Integer concurrency, String cache, Sessions sessions) {

    private static final Pattern CACHE = Pattern.compile("cold|warm|shared([1-9][0-9]?)|turns([2-9]|[1-9][0-9])");
    private static final Pattern ID = Pattern.compile("p(\\d+)-o(\\d+)-(?:r([0-9.]+)|c(\\d+))-(" + CACHE.pattern() + ")");
    /** Think time between a turn's answer and the next question, unless the matrix says (seconds). */
    public static final double DEFAULT_THINK_S = 1.0;
    /** The context a session's prompt must fit in, unless the matrix says (tokens). */
    public static final int DEFAULT_CONTEXT_TOKENS = 4096;

    /**
     * A session scenario's rule: its turns, the think time before each next question (a turn is
     * intended when its think time ends), and the context its prompts must fit in. A session whose
     * next prompt would not fit, or one of whose turns failed, ends there; in a closed loop its user
     * starts a new one.
     */
    public record Sessions(int turns, double thinkS, int contextTokens) {
        public Sessions {
            if (turns < 2 || thinkS < 0 || contextTokens < 1) {
                throw new IllegalArgumentException("sessions need 2 or more turns, a think time >= 0 and a context >= 1 token");
            }
        }
    }

    /** A scenario whose sessions, if any, take the default think time and context. */
    public Scenario(int promptTokens, int outputTokens, Double rateRps, Integer concurrency, String cache) {
        this(promptTokens, outputTokens, rateRps, concurrency, cache, sessionsOf(cache, DEFAULT_THINK_S, DEFAULT_CONTEXT_TOKENS));
    }

    /** The sessions a cache condition names ({@code turnsN}), with the given think time and context; null for the others. */
    public static Sessions sessionsOf(String cache, double thinkS, int contextTokens) {
        final Matcher m = cache == null ? null : CACHE.matcher(cache);
        return m != null && m.matches() && m.group(2) != null ? new Sessions(Integer.parseInt(m.group(2)), thinkS, contextTokens) : null;
    }

    /** Whether {@code cache} names a cache condition. */
    public static boolean knownCache(String cache) {
        return cache != null && CACHE.matcher(cache).matches();
    }

    /**
     * The share of each prompt's tokens that is one prefix common to the scenario: 0 for {@code
     * cold}, N/100 for {@code sharedN}; null for {@code warm} (the whole filler shared) and sessions.
     */
    public Double sharedFraction() {
        if ("cold".equals(cache)) {
            return 0.0;
        }
        final Matcher m = CACHE.matcher(cache);
        return m.matches() && m.group(1) != null ? Integer.parseInt(m.group(1)) / 100.0 : null;
    }

    public Scenario {
        if (promptTokens < 1 || outputTokens < 1) {
            throw new IllegalArgumentException("prompt and output tokens must be >= 1");
        }
        if ((rateRps == null) == (concurrency == null)) {
            throw new IllegalArgumentException("a scenario has either a rate or a concurrency");
        }
        if (!knownCache(cache)) {
            throw new IllegalArgumentException("cache must be cold, warm, sharedN (N % of each prompt a common prefix, 1-99) or"
                    + " turnsN (sessions of N turns, 2-99), got " + cache);
        }
        if ((sessions != null) != cache.startsWith("turns")) {
            throw new IllegalArgumentException("a turnsN scenario has sessions, and only it: " + cache);
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
            throw new IllegalArgumentException("'" + id + "' is not a scenario id (like p128-o64-r10-cold, p128-o64-c8-warm,"
                    + " p128-o64-r10-shared90 or p128-o64-c8-turns4)");
        }
        return new Scenario(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                m.group(3) != null ? Double.parseDouble(m.group(3)) : null,
                m.group(4) != null ? Integer.parseInt(m.group(4)) : null, m.group(5));
    }

    private static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
    }
}

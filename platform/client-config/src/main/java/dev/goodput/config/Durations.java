package dev.goodput.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine;

/**
 * Durations as every command line and file takes them: 30 (seconds), 500ms, 30s, 5m, 2h, compounds
 * of those (1h30m, 2m30s), or ISO-8601 (PT30S). One syntax everywhere, so {@code --duration 30} and {@code --duration 30s} agree.
 */
public final class Durations {
    private Durations() {
    }

    /**
     * @param flag the flag being parsed, named in the error
     * @throws IllegalArgumentException naming the flag and the accepted forms
     */
    public static Duration parse(String value, String flag) {
        final String v = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.startsWith("-")) {
                return parse(v.substring(1), flag).negated();
            }
            if (!v.isEmpty() && (Character.isDigit(v.charAt(0)) || v.charAt(0) == '.') && v.chars().allMatch(c -> c == '.'
                    || Character.isDigit(c))) {
                return ofSeconds(Double.parseDouble(v));
            }
            final Matcher m = COMPOUND.matcher(v);
            if (!v.isEmpty() && m.matches()) {
                double seconds = 0;
                for (int g = 1; g <= 4; g++) {
                    if (m.group(g) != null) {
                        seconds += Double.parseDouble(m.group(g)) * UNIT_SECONDS[g - 1];
                    }
                }
                return ofSeconds(seconds);
            }
            return Duration.parse(value.trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(flag + " '" + value + "' is not a duration (use 30, 500ms, 30s, 5m, 2h, 1h30m)");
        }
    }

    /** Hours, minutes, seconds and milliseconds, each at most once and in that order: 2h, 1h30m, 2m30s, 1s500ms. */
    private static final Pattern COMPOUND = Pattern.compile(
            "(?:([0-9]*\\.?[0-9]+)h)?(?:([0-9]*\\.?[0-9]+)m(?!s))?(?:([0-9]*\\.?[0-9]+)s)?(?:([0-9]+)ms)?");
    private static final double[] UNIT_SECONDS = {3600, 60, 1, 0.001};

    /** A duration that must be more than zero: a window, a run length, a timeout. */
    public static Duration positive(String value, String flag) {
        return positive(parse(value, flag), flag);
    }

    /** Refuses a duration that is zero or negative, naming the flag. */
    public static Duration positive(Duration d, String flag) {
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(flag + " " + text(d) + ": must be more than 0 (for example 500ms, 30s, 5m)");
        }
        return d;
    }

    /** Refuses a negative duration (zero allowed: no grace, no warm-up), naming the flag. */
    public static Duration nonNegative(Duration d, String flag) {
        if (d.isNegative()) {
            throw new IllegalArgumentException(flag + " " + text(d) + ": must be 0 or more");
        }
        return d;
    }

    private static Duration ofSeconds(double s) {
        if (Double.isNaN(s) || Double.isInfinite(s)) {
            throw new IllegalArgumentException("not a number");
        }
        return Duration.ofMillis(Math.round(s * 1000));
    }

    /** A duration as a flag takes it: {@code 5s}, or {@code 500ms} when it is not whole seconds. */
    public static String text(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    /**
     * A duration in seconds as the console prints it beside "s": exact to the millisecond, no trailing
     * zeros ({@code 5}, {@code 2.5}, {@code 0.2}), so a 200 ms grace never reads as 0 s.
     */
    public static String seconds(Duration d) {
        return BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString();
    }

    /** A picocli converter to seconds, for options declared as seconds: takes every form above. */
    public static final class Seconds implements CommandLine.ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            try {
                return parse(value, "duration").toMillis() / 1000.0;
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}

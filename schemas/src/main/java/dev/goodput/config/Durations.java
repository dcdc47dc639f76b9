package dev.goodput.config;

import java.time.Duration;
import java.util.Locale;

import picocli.CommandLine;

/**
 * Durations as every command line and file takes them: 30 (seconds), 500ms, 30s, 5m, 2h, or
 * ISO-8601 (PT30S). One syntax everywhere, so {@code --duration 30} and {@code --duration 30s} agree.
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
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).trim()));
            }
            if (v.endsWith("s")) {
                return ofSeconds(Double.parseDouble(v.substring(0, v.length() - 1)));
            }
            if (v.endsWith("m")) {
                return ofSeconds(Double.parseDouble(v.substring(0, v.length() - 1)) * 60);
            }
            if (v.endsWith("h")) {
                return ofSeconds(Double.parseDouble(v.substring(0, v.length() - 1)) * 3600);
            }
            if (!v.isEmpty() && (Character.isDigit(v.charAt(0)) || v.charAt(0) == '-' || v.charAt(0) == '.')) {
                return ofSeconds(Double.parseDouble(v));
            }
            return Duration.parse(value.trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(flag + " '" + value + "' is not a duration (use 30, 500ms, 30s, 5m, 2h)");
        }
    }

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

    private static String text(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
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

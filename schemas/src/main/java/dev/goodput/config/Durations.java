package dev.goodput.config;

import java.time.Duration;
import java.util.Locale;

/** Durations as the command lines take them: 500ms, 30s, 5m, 2h, or ISO-8601 (PT30S). */
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
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
            }
            if (v.endsWith("m")) {
                return Duration.ofSeconds(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 60));
            }
            if (v.endsWith("h")) {
                return Duration.ofSeconds(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 3600));
            }
            return Duration.parse(value.trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(flag + " '" + value + "' is not a duration (use 500ms, 30s, 5m, 2h)");
        }
    }
}

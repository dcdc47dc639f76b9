package dev.goodput.runner;

import java.time.Duration;
import java.util.Locale;

import picocli.CommandLine;

/** Parses 500ms, 30s, 5m, 2h, or an ISO-8601 duration. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
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
            return Duration.parse(value);
        } catch (RuntimeException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (use 500ms, 30s, 5m, 2h)");
        }
    }
}

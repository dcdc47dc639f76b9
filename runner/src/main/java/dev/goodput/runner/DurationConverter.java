package dev.goodput.runner;

import java.time.Duration;

import dev.goodput.config.Durations;
import picocli.CommandLine;

/** Parses 500ms, 30s, 5m, 2h, or an ISO-8601 duration. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return Durations.parse(value, "duration");
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}

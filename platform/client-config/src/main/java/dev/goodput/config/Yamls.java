package dev.goodput.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Date;
import java.util.List;
import java.util.Map;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

/** The one way configuration YAML is read: safe types only, duplicate keys refused, errors at file:line:column. */
public final class Yamls {
    private Yamls() {
    }

    /** Reads and parses {@code file}; any problem is a {@link ConfigException} of {@code kind} naming the file. */
    public static Object load(Path file, String kind) {
        final String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(kind, file.toString(), List.of("file not found"));
        } catch (IOException e) {
            throw new ConfigException(kind, file.toString(), List.of("cannot read: " + e.getMessage()));
        }
        return parse(text, file.toString(), kind);
    }

    /** Parses YAML text; {@code source} names it in errors. */
    public static Object parse(String text, String source, String kind) {
        try {
            final LoaderOptions o = new LoaderOptions();
            o.setAllowDuplicateKeys(false);
            return new Yaml(new SafeConstructor(o)).load(text);
        } catch (MarkedYAMLException e) {
            throw new ConfigException(kind, source, List.of(where(source, e) + ": not valid YAML: "
                    + (e.getContext() == null ? "" : e.getContext() + ", ") + e.getProblem()));
        } catch (YAMLException e) {
            throw new ConfigException(kind, source, List.of("not valid YAML: " + e.getMessage().replace('\n', ' ')));
        }
    }

    /**
     * A required non-empty string field of a map entry; {@code at} names the entry in the message
     * ({@code prices[2].source: expected a non-empty string}).
     */
    public static String string(Map<?, ?> entry, String key, String at) {
        if (!(entry.get(key) instanceof String s) || s.isBlank()) {
            throw new IllegalArgumentException(at + "." + key + ": expected a non-empty string");
        }
        return s;
    }

    /** A required {@code effective_from} instant of a map entry: a YAML timestamp, or ISO-8601 text. */
    public static Instant effectiveFrom(Map<?, ?> entry, String at) {
        final Object v = entry.get("effective_from");
        try {
            return v instanceof Date d ? d.toInstant() : Instant.parse(String.valueOf(v));
        } catch (DateTimeParseException ex) {
            throw new IllegalArgumentException(at + ".effective_from: expected an ISO-8601 instant like 2026-01-01T00:00:00Z");
        }
    }

    private static String where(String source, MarkedYAMLException e) {
        final var m = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
        return m == null ? source : source + ":" + (m.getLine() + 1) + ":" + (m.getColumn() + 1);
    }
}

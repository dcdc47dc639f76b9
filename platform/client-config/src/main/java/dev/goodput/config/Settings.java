package dev.goodput.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Goodput's own settings for one application (window, grace, objectives, topic names), merged in
 * the order {@link ClientConfig#merge} merges its Kafka client properties: a {@code .properties}
 * file ({@code --settings}), then environment overrides, then command-line flags. The application
 * names the keys it knows; each value keeps where it came from, so a bad one is refused naming the
 * flag, variable or file line to fix.
 */
public final class Settings {
    /** {@code GOODPUT_WINDOW=30s} sets {@code window}; {@code GOODPUT_TOPIC_WINDOW_STATS} sets {@code topic.window-stats}. */
    public static final String ENV_PREFIX = "GOODPUT_";

    /** A value and where it was set: {@code --window}, {@code GOODPUT_WINDOW} or {@code window in goodput.properties}. */
    public record Value(String value, String source) {
    }

    private Settings() {
    }

    /** The environment variable that sets a key. */
    public static String envName(String key) {
        return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /**
     * @param file  a settings file, or null; a key in it that the application does not know is refused
     * @param env   the environment (other variables, {@code GOODPUT_KAFKA_*} among them, are not settings)
     * @param flags values given by flags, by key, with the flag's name; null values were not given
     * @param known the keys the application knows
     */
    public static Map<String, Value> merge(Path file, Map<String, String> env, Map<String, Value> flags, Set<String> known) {
        final Map<String, Value> out = new LinkedHashMap<>();
        if (file != null) {
            final Properties p = ClientConfig.load(file, "settings file");
            final List<String> unknown = new ArrayList<>();
            for (String k : new TreeSet<>(p.stringPropertyNames())) {
                if (known.contains(k)) {
                    out.put(k, new Value(p.getProperty(k).strip(), k + " in " + file));
                } else {
                    unknown.add(k + ": not a setting (known: " + String.join(", ", new TreeSet<>(known)) + ")");
                }
            }
            if (!unknown.isEmpty()) {
                throw new ConfigException("settings file", file.toString(), unknown);
            }
        }
        for (String k : known) {
            final String v = env.get(envName(k));
            if (v != null) {
                out.put(k, new Value(v.strip(), envName(k)));
            }
        }
        flags.forEach((k, v) -> {
            if (!known.contains(k)) {
                throw new IllegalArgumentException("not a known setting: " + k);
            }
            if (v != null && v.value() != null) {
                out.put(k, v);
            }
        });
        return out;
    }
}

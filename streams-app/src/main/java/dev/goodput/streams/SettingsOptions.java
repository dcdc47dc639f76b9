package dev.goodput.streams;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.goodput.config.Settings;
import picocli.CommandLine.Option;

/**
 * The streams-app's settings as flags, shared by every command that runs the topology (streams,
 * replay): a settings file, then {@code GOODPUT_<KEY>} variables, then these flags. A flag not given
 * leaves the value below it, so a replay keeps the live run's windowing unless told otherwise.
 */
public final class SettingsOptions {

    @Option(names = "--settings", description = "Goodput settings file (.properties; keys: window, grace, orphan-expiry, goodput, "
            + "topic.<name>). GOODPUT_<KEY> variables override it (GOODPUT_WINDOW=30s), flags override both.")
    Path file;

    @Option(names = "--window", description = "Tumbling window size (default: " + StreamsSettings.DEFAULT_WINDOW + ").")
    String window;

    @Option(names = "--grace", description = "Grace after a window's end (default: " + StreamsSettings.DEFAULT_GRACE + ").")
    String grace;

    @Option(names = "--orphan-expiry", description = "How long, in log time after its last chunk, a request whose request "
            + "event never came holds its windows open before it is refused to the DLQ as orphaned (default: "
            + StreamsSettings.DEFAULT_ORPHAN_EXPIRY + "; a run's end-of-run marker refuses its orphans at once).")
    String orphanExpiry;

    @Option(names = "--goodput", arity = "1..*", description = "SLO objectives replacing the contract's, in ms: ttft:200 tpot:50 e2el:5000.")
    List<String> goodput;

    @Option(names = "--topic", description = "Topic name override, NAME=TOPIC for tokens, requests, verdicts, window-stats, dlq (repeatable).")
    Map<String, String> topics = new LinkedHashMap<>();

    /** The merged settings, each with where it was set. */
    public Map<String, Settings.Value> merged(Map<String, String> env) {
        final Map<String, Settings.Value> flags = new LinkedHashMap<>();
        flags.put("window", new Settings.Value(window, "--window"));
        flags.put("grace", new Settings.Value(grace, "--grace"));
        flags.put("orphan-expiry", new Settings.Value(orphanExpiry, "--orphan-expiry"));
        flags.put("goodput", new Settings.Value(goodput == null ? null : String.join(" ", goodput), "--goodput"));
        topics.forEach((name, topic) -> {
            if (!StreamsSettings.KEYS.contains("topic." + name)) {
                throw new IllegalArgumentException("--topic " + name + "=...: unknown topic (use tokens, requests, verdicts, "
                        + "window-stats, dlq)");
            }
            flags.put("topic." + name, new Settings.Value(topic, "--topic " + name + "=" + topic));
        });
        return Settings.merge(file, env, flags, StreamsSettings.KEYS);
    }

    /** Whether a windowing flag was given (some commands refuse them). */
    public boolean windowingGiven() {
        return window != null || grace != null;
    }

    /** The objectives flag, if given. */
    public List<String> goodput() {
        return goodput;
    }
}

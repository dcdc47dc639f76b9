package dev.goodput.sink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.goodput.config.ConfigException;
import dev.goodput.config.Durations;
import dev.goodput.config.Settings;
import dev.goodput.contract.Contract;
import dev.goodput.topics.Topics;

/**
 * What the sink's results depend on.
 *
 * @param rollingSpans    spans of the rolling cost records, besides the per-window one
 * @param peakTokensPerS  configured peak output tokens/s per contract id, for utilization
 */
public record SinkConfig(String pricesTopic, String windowStatsTopic, String costTopic, String dlqTopic,
                         List<Duration> rollingSpans, Map<String, Double> peakTokensPerS) {

    /** Each contract's configured peak output tokens/s, by contract id (contracts without one are left out). */
    public static Map<String, Double> peaks(Collection<Contract> contracts) {
        final Map<String, Double> peaks = new LinkedHashMap<>();
        for (Contract c : contracts) {
            if (c.hardware().peakOutputTokensPerS() != null) {
                peaks.put(c.id(), c.hardware().peakOutputTokensPerS());
            }
        }
        return peaks;
    }

    /** The rolling cost spans by default, as the flag writes them. */
    public static final String DEFAULT_ROLLING = "1m,15m,1h";

    /** The keys of the sink's settings ({@code --settings} file, {@code GOODPUT_<KEY>}, flags). */
    public static final Set<String> KEYS = Set.of("rolling", "topic.prices", "topic.window-stats", "topic.cost", "topic.dlq");

    public static SinkConfig defaults(Map<String, Double> peakTokensPerS) {
        return new SinkConfig(Topics.PRICES.name(), Topics.WINDOW_STATS.name(), Topics.COST.name(), Topics.DLQ.name(),
                spans(DEFAULT_ROLLING, "rolling"), peakTokensPerS);
    }

    /**
     * A base with merged settings applied.
     *
     * @throws ConfigException naming each bad value's source (flag, variable or file) and what is allowed
     */
    public static SinkConfig apply(SinkConfig base, Map<String, Settings.Value> merged) {
        final List<String> problems = new ArrayList<>();
        List<Duration> rolling = base.rollingSpans();
        final Settings.Value r = merged.get("rolling");
        if (r != null) {
            try {
                rolling = spans(r.value(), r.source());
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException("settings", "(flags, GOODPUT_* variables, --settings file)", problems);
        }
        return new SinkConfig(topic(merged, "prices", base.pricesTopic()), topic(merged, "window-stats", base.windowStatsTopic()),
                topic(merged, "cost", base.costTopic()), topic(merged, "dlq", base.dlqTopic()), rolling, base.peakTokensPerS());
    }

    private static List<Duration> spans(String text, String source) {
        final List<Duration> out = new ArrayList<>();
        for (String part : text.split(",")) {
            out.add(Durations.positive(part.trim(), source));
        }
        return List.copyOf(out);
    }

    private static String topic(Map<String, Settings.Value> merged, String name, String otherwise) {
        final Settings.Value v = merged.get("topic." + name);
        return v == null || v.value().isBlank() ? otherwise : v.value();
    }
}

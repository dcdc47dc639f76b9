package dev.goodput.sink;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    public static SinkConfig defaults(Map<String, Double> peakTokensPerS) {
        return new SinkConfig(Topics.PRICES.name(), Topics.WINDOW_STATS.name(), Topics.COST.name(), Topics.DLQ.name(),
                List.of(Duration.ofMinutes(1), Duration.ofMinutes(15), Duration.ofHours(1)), peakTokensPerS);
    }
}

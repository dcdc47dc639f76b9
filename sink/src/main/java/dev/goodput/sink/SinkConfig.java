package dev.goodput.sink;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the sink's results depend on.
 *
 * @param rollingSpans    spans of the rolling cost records, besides the per-window one
 * @param peakTokensPerS  configured peak output tokens/s per contract id, for utilization
 */
public record SinkConfig(String pricesTopic, String windowStatsTopic, String costTopic, String dlqTopic,
                         List<Duration> rollingSpans, Map<String, Double> peakTokensPerS) {

    public static SinkConfig defaults(Map<String, Double> peakTokensPerS) {
        return new SinkConfig("gpu.prices", "llm.window-stats", "llm.cost", "llm.dlq",
                List.of(Duration.ofMinutes(1), Duration.ofMinutes(15), Duration.ofHours(1)), peakTokensPerS);
    }
}

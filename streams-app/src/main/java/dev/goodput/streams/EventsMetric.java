package dev.goodput.streams;

import java.util.Map;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.metrics.stats.WindowedSum;
import org.apache.kafka.streams.StreamsMetrics;

/**
 * Events the request assembler took in, as a Kafka Streams metric beside Kafka Streams' own. Its
 * {@code process-rate} and {@code process-total} count records, and a token event is a run of
 * chunks, so they count runs; these count chunks and request events
 * ({@code goodput-streams-metrics}: {@code events-rate}, {@code events-total}, by {@code task-id}),
 * through the same registry, JMX reporter and metrics reporters.
 */
final class EventsMetric {
    static final String GROUP = "goodput-streams-metrics";
    static final String RATE = "events-rate";
    static final String TOTAL = "events-total";

    private final Sensor sensor;

    EventsMetric(StreamsMetrics metrics, String taskId) {
        // the same sensor again when the task comes back to this instance: adding its metrics is then a no-op
        sensor = metrics.addSensor("goodput-events-" + taskId, Sensor.RecordingLevel.INFO);
        final Map<String, String> tags = Map.of("task-id", taskId);
        sensor.add(new MetricName(RATE, GROUP, "Token and request events processed per second, each chunk of a run "
                + "counted", tags), new Rate(new WindowedSum()));
        sensor.add(new MetricName(TOTAL, GROUP, "Token and request events processed, each chunk of a run "
                + "counted", tags), new CumulativeSum());
    }

    void record(int events) {
        sensor.record(events);
    }
}

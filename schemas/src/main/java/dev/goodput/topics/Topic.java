package dev.goodput.topics;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.admin.NewTopic;

/**
 * A topic name paired with the type of its values and how it is created. Keys are strings (the
 * request id for raw topics), readable by every Kafka tool. Values are Confluent wire-format Avro.
 *
 * @param name       the topic name
 * @param valueType  the Avro class of the values ({@code byte[]} for the DLQ, which keeps original bytes)
 * @param partitions partitions when this project creates the topic
 * @param configs    topic configs when this project creates it
 */
public record Topic<V>(String name, Class<V> valueType, int partitions, Map<String, String> configs) {

    /** The same topic under another name (names are configurable; types and settings are not). */
    public Topic<V> named(String otherName) {
        return new Topic<>(otherName, valueType, partitions, configs);
    }

    /** The same topic with another partition count. */
    public Topic<V> withPartitions(int n) {
        return new Topic<>(name, valueType, n, configs);
    }

    /** The same topic with one setting changed (tests that write a recorded log stamp its times themselves). */
    public Topic<V> withConfig(String key, String value) {
        final Map<String, String> c = new HashMap<>(configs);
        c.put(key, value);
        return new Topic<>(name, valueType, partitions, Map.copyOf(c));
    }

    public NewTopic newTopic(short replicationFactor) {
        return new NewTopic(name, partitions, replicationFactor).configs(configs);
    }
}

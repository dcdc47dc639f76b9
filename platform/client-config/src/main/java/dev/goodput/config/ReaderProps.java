package dev.goodput.config;

import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;

/** Consumer settings of the project's readers of result topics: their own group, from the start, committed records only. */
public final class ReaderProps {
    private ReaderProps() {
    }

    /** @param groupPrefix a fresh group id is made from it, so every reader sees the whole topic */
    public static Properties committedFromStart(Properties client, String groupPrefix) {
        final Properties p = ClientConfig.forConsumer(client);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupPrefix + "-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return p;
    }
}

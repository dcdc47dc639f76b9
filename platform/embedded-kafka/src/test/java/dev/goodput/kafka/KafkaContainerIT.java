package dev.goodput.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The same produce/consume check against the apache/kafka image, for machines with a Docker
 * engine. Skipped where there is none; {@link EmbeddedKafkaIT} covers those machines.
 */
@Testcontainers(disabledWithoutDocker = true)
class KafkaContainerIT {

    @Container
    static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.1.1");

    @Test
    void producesAndConsumesThroughTheContainer() throws Exception {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.getBootstrapServers());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic("c", 1, (short) 1))).all().get();
        }
        EmbeddedKafkaIT.produce(KAFKA.getBootstrapServers(), "c", "v1", "v2");
        assertThat(EmbeddedKafkaIT.consumeAll(KAFKA.getBootstrapServers(), "c", 2)).containsExactly("v1", "v2");
    }
}

package dev.goodput.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;

/** The replication topics are created with, what is said of what they got, and the failover allowance (#61). */
class ReplicationTest {

    private static Properties with(String value) {
        final Properties p = new Properties();
        if (value != null) {
            p.put(Replication.KEY, value);
        }
        return p;
    }

    @Test
    void theClustersDefaultUnlessTheUserGivesOne() {
        assertThat(Replication.factor(with(null))).isEqualTo((short) -1);
        assertThat(Replication.factor(with("3"))).isEqualTo((short) 3);
        assertThat(Replication.factor(with(" -1 "))).isEqualTo((short) -1);
        for (String bad : List.of("0", "-2", "three", "40000")) {
            assertThatThrownBy(() -> Replication.factor(with(bad))).as(bad).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("replication.factor=" + bad).hasMessageContaining("-1 for the broker's default");
        }
    }

    @Test
    void aTopicBelowWhatTheClusterCanGiveIsSaidWithItsFix() {
        final List<Replication.Held> held = List.of(new Replication.Held("llm.tokens", 1, 1), new Replication.Held("llm.requests", 3, 2),
                new Replication.Held("_schemas", 3, 1), new Replication.Held("gpu.prices", 2, 2));
        final List<String> on3 = Replication.problems(held, 3);
        assertThat(on3).hasSize(3);
        assertThat(on3.get(0)).contains("llm.tokens has 1 replica(s) on a cluster of 3 brokers").contains("kafka-reassign-partitions.sh");
        assertThat(on3.get(1)).contains("_schemas has 3 replicas but min.insync.replicas=1").contains("--add-config min.insync.replicas=2");
        assertThat(on3.get(2)).contains("gpu.prices has 2 replica(s)");
        // a single broker can give one replica: nothing to say; five brokers want no more than three
        assertThat(Replication.problems(List.of(new Replication.Held("llm.tokens", 1, 1)), 1)).isEmpty();
        assertThat(Replication.problems(List.of(new Replication.Held("llm.tokens", 3, 2)), 5)).isEmpty();
    }

    @Test
    void aClusterOfSeveralBrokersAllowsForTheFencingOfADeadOne() {
        assertThat(Failover.allowance(1, Failover.KAFKA_DEFAULT_SESSION)).isZero();
        assertThat(Failover.allowance(3, Failover.KAFKA_DEFAULT_SESSION)).isEqualTo(Duration.ofSeconds(10));
        assertThat(Failover.allowance(3, Duration.ofSeconds(18))).isEqualTo(Duration.ofSeconds(19));
    }
}

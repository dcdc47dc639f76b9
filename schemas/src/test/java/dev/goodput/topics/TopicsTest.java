package dev.goodput.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import dev.goodput.keys.Keys;
import org.junit.jupiter.api.Test;

/** A window's record goes to the partition of its scenario's key, whatever the scenario holds. */
class TopicsTest {

    @Test
    void aWindowKeyPartitionsAsItsScenarioKeyDoes() {
        final Random random = new Random(11);
        final String[] scenarios = {"p64-o64-r10-cold", "a|b", "|", "", "x||y|"};
        for (int i = 0; i < 200; i++) {
            final Keys.Window w = new Keys.Window("c".repeat(1 + random.nextInt(64)), scenarios[i % scenarios.length],
                    random.nextLong());
            assertThat(Topics.windowStatsPartition(w.text(), 6)).isEqualTo(Topics.scenarioPartition(w.scenario().text(), 6));
        }
    }
}

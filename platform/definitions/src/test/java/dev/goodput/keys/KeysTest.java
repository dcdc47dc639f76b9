package dev.goodput.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;

import org.junit.jupiter.api.Test;

/** A window key's text reads back as the window it names, whatever its scenario holds. */
class KeysTest {

    @Test
    void aWindowKeyReadsBackWhateverItsScenarioHolds() {
        final Random random = new Random(11);
        final String[] scenarios = {"p64-o64-r10-cold", "a|b", "|", "", "x||y|"};
        for (int i = 0; i < 200; i++) {
            final Keys.Window w = new Keys.Window("c".repeat(1 + random.nextInt(64)), scenarios[i % scenarios.length],
                    random.nextLong());
            assertThat(Keys.Window.parse(w.text())).isEqualTo(w);
            assertThat(Keys.Window.scenarioText(w.text())).isEqualTo(w.scenario().text());
        }
    }

    @Test
    void aTextThatNamesNoWindowIsRefusedByName() {
        assertThatThrownBy(() -> Keys.Window.parse("contract|scenario")).hasMessageContaining("not a window key");
        assertThatThrownBy(() -> Keys.Window.parse("c|s|x")).hasMessageContaining("c|s|x");
        assertThat(Keys.Window.scenarioText("no-separator")).isEqualTo("no-separator");
    }
}

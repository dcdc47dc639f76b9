package dev.goodput.definitions;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class SloFlagsTest {

    @Test
    void objectivesPrintAsGoodputTakesThemAndReadBackTheSame() {
        final var o = SloFlags.parse(List.of("ttft:200", "tpot:12.5", "e2el:5000"));
        assertThat(SloFlags.text(o)).isEqualTo("ttft:200 tpot:12.5 e2el:5000");
        assertThat(SloFlags.parse(List.of(SloFlags.text(o).split(" ")))).isEqualTo(o);
        assertThat(SloFlags.text(SloFlags.parse(List.of("e2e:60")))).isEqualTo("e2el:60");
        assertThat(SloFlags.text(SloFlags.parse(List.of()))).isEqualTo("none");
    }
}

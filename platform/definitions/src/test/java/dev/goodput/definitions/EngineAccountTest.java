package dev.goodput.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class EngineAccountTest {

    /** llama-server's timings for 4 tokens in 18.177 ms: 3 gaps, 6.059 ms each; its own per-token figure reads 4.544. */
    @Test
    void decodePerGapDividesByTheGapsNotTheTokens() {
        assertThat(EngineAccount.decodePerGapUs(18.177, 4)).isCloseTo(6059.0, within(1e-6));
        assertThat(18.177 / 4 * 1000).isLessThan(EngineAccount.decodePerGapUs(18.177, 4));
        assertThat(EngineAccount.decodePerGapUs(5.0, 1)).isNaN();
    }

    @Test
    void beforePrefillIsTtftLessTheEnginesPromptTime() {
        // 2.9 s of TTFT, 39 ms of it prompt evaluation: 2.861 s in the queue and on the way
        assertThat(EngineAccount.beforePrefillUs(2_900_000, 39.077)).isEqualTo(2_860_923);
    }

    @Test
    void tpotRatioIsOneWhenBothClocksAgree() {
        assertThat(EngineAccount.tpotRatio(1_260_000, 1260.0)).isEqualTo(1.0);
        assertThat(EngineAccount.tpotRatio(1_248_000, 1260.0)).isCloseTo(0.990476, within(1e-6));
        assertThat(EngineAccount.tpotRatio(1_000, 0)).isNaN();
    }

    @Test
    void aPromptIsOffBeyondFivePercentOfItsIntendedLengthWithTheTemplate() {
        assertThat(EngineAccount.promptOff(256, 28, 284)).isFalse();
        assertThat(EngineAccount.promptOff(256, 0, 268)).isFalse();
        assertThat(EngineAccount.promptOff(256, 0, 269)).isTrue();
        // the whitespace-sized prompt of the issue: 256 words, 516 Llama-2 tokens
        assertThat(EngineAccount.promptOff(256, 0, 516)).isTrue();
        assertThat(EngineAccount.promptOff(256, 0, 200)).isTrue();
    }
}

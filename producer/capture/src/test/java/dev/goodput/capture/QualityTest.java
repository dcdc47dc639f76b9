package dev.goodput.capture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QualityTest {

    @Test
    void exactMatchNormalizesCaseSpaceAndTrailingPunctuation() {
        assertThat(Quality.score("exact_match", "  Paris. ", "paris")).isEqualTo(1.0);
        assertThat(Quality.score("exact_match", "The answer is Paris.", "Paris")).isEqualTo(0.0);
    }

    @Test
    void containsFindsTheAnswerInside() {
        assertThat(Quality.score("contains", "The answer is Paris. lorem ipsum", "Paris")).isEqualTo(1.0);
        assertThat(Quality.score("contains", "I am not sure.", "Paris")).isEqualTo(0.0);
    }

    @Test
    void regexAndValidJson() {
        assertThat(Quality.score("regex", "total: 144 units", "\\b144\\b")).isEqualTo(1.0);
        assertThat(Quality.score("regex", "total: 1440 units", "\\b144\\b")).isEqualTo(0.0);
        assertThat(Quality.score("valid_json", " {\"a\": [1, 2]} ", "")).isEqualTo(1.0);
        assertThat(Quality.score("valid_json", "{\"a\": [1, 2}", "")).isEqualTo(0.0);
        assertThat(Quality.score("valid_json", "", "")).isEqualTo(0.0);
    }

    @Test
    void passIsScoreAtOrAboveTheFloor() {
        assertThat(Quality.passes(1.0, 1.0)).isTrue();
        assertThat(Quality.passes(0.99, 1.0)).isFalse();
        assertThat(Quality.passes(0.5, 0.5)).isTrue();
    }
}

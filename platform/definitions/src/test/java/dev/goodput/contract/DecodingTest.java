package dev.goodput.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A decoding field the contract leaves null is not sent, and says so: the server's default applies, not "none". */
class DecodingTest {

    @Test
    void nullFieldsAreNotSent() {
        assertThat(new Contract.Decoding(0.0, 1.0, null, 42L, false).notSent()).containsExactly("top_k");
        assertThat(new Contract.Decoding(0.0, 1.0, null, null, false).notSent()).containsExactly("top_k", "seed");
        assertThat(new Contract.Decoding(0.0, 1.0, 40, 42L, false).notSent()).isEmpty();
    }
}

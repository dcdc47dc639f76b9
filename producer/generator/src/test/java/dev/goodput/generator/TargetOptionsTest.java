package dev.goodput.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class TargetOptionsTest {

    @Test
    void headersTakeCurlsAndKeyValueFormsSplitAtTheFirstSeparator() {
        assertThat(TargetOptions.headers(List.of("api-key: k=1:2", "X-Team=a:b", "Authorization: Basic dTpw==")))
                .isEqualTo(Map.of("api-key", "k=1:2", "X-Team", "a:b", "Authorization", "Basic dTpw=="));
    }

    @Test
    void aHeaderWithoutANameIsRefused() {
        assertThatThrownBy(() -> TargetOptions.headers(List.of(": v"))).hasMessageContaining("'Name: value'");
        assertThatThrownBy(() -> TargetOptions.headers(List.of("novalue"))).hasMessageContaining("'Name: value'");
        assertThatThrownBy(() -> TargetOptions.headers(List.of("bad name: v"))).hasMessageContaining("'Name: value'");
    }
}

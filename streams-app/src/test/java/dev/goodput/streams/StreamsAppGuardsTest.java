package dev.goodput.streams;

import java.util.Properties;

import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** The start-up guards of the speed machinery ({@code streams.fast}): each says when it cannot work. */
class StreamsAppGuardsTest {

    @Test
    void theStreamsRebalanceProtocolIsSaidToBypassCoalescing() {
        final Properties p = new Properties();
        Assertions.assertThat(StreamsApp.bypassesClientSupplier(p)).isFalse();
        p.put("group.protocol", "classic");
        Assertions.assertThat(StreamsApp.bypassesClientSupplier(p)).isFalse();
        p.put("group.protocol", " STREAMS ");
        Assertions.assertThat(StreamsApp.bypassesClientSupplier(p)).isTrue();
    }
}

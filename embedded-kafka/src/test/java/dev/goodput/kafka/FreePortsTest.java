package dev.goodput.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

class FreePortsTest {

    @Test
    void portsFoundTogetherAreDistinctAndFree() throws Exception {
        final int[] ports = EmbeddedKafka.freePorts(200);
        assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(200);
        for (int p : ports) {
            try (java.net.ServerSocket s = new java.net.ServerSocket(p, 1, java.net.InetAddress.getLoopbackAddress())) {
                assertThat(s.getLocalPort()).isEqualTo(p);
            }
        }
    }
}

package dev.goodput.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

class FreePortsTest {

    @Test
    void portsFoundTogetherAreDistinctAndFree() throws Exception {
        final int[] ports = EmbeddedKafka.freePorts(200);
        assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(200);
        for (int p : ports) {
            try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
                assertThat(s.getLocalPort()).isEqualTo(p);
            }
        }
    }
}

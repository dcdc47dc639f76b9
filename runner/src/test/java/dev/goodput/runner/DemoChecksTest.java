package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** A busy port is refused before anything starts, naming its flag and the fix, never with advice to delete data (#62). */
class DemoChecksTest {

    @Test
    void aBusyPortIsRefusedNamingItsFlag() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)); // the kernel's choice, held
            final int port = taken.getLocalPort();
            assertThatThrownBy(() -> DemoChecks.free(port, "--metrics-port")).hasMessage("port " + port
                    + " is in use: choose another --metrics-port (0 picks a free one)");
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final PrintStream stderr = System.err;
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            final int code;
            try {
                code = Main.run("demo", "--kafka-port", Integer.toString(port), "--contract", "../config/contract.yaml",
                        "--matrix", "../config/scenarios.yaml");
            } finally {
                System.setErr(stderr);
            }
            assertThat(code).isEqualTo(Main.EXIT_REFUSED);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("choose another --kafka-port").doesNotContain("--fresh");
        }
        DemoChecks.free(0, "--kafka-port"); // 0 picks a free one: nothing to check
    }

    @Test
    void aSweepOfNoRunsAPointIsRefusedAtStart() {
        final SweepOptions sweep = new SweepOptions();
        sweep.on = true;
        sweep.target = "slo:0.99";
        sweep.repeat = 0;
        assertThatThrownBy(() -> DemoChecks.atStart(sweep, 64, true, 0, 0, 0)).hasMessage("--sweep-repeat 0: 1 or more runs of each point");
        sweep.repeat = 3;
        DemoChecks.atStart(sweep, 64, true, 0, 0, 0);
    }
}

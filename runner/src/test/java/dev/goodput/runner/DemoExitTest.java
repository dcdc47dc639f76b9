package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

class DemoExitTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private final Path dir = Path.of(".goodput");

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aCompleteRunExitsZero() {
        assertThat(DemoExit.status(out, null, dir, () -> 0, "")).isZero();
        assertThat(printed()).isEqualTo("Stopped." + System.lineSeparator());
    }

    @Test
    void anIncompleteReportExitsOneAndSaysWhatItLacks() {
        final int status = DemoExit.status(out, null, dir, () -> 0, "no priced window of scenario chat-short");
        assertThat(status).isEqualTo(Main.EXIT_FAILED);
        assertThat(printed()).endsWith("FAILED: the report is incomplete: no priced window of scenario chat-short."
                + System.lineSeparator());
    }

    @Test
    void aRunWithNoSuccessExitsOneOnTheGeneratorsWordAlone() {
        final int status = DemoExit.status(out, null, dir, () -> {
            out.println("FAILED: none of the run's 3 requests succeeded.");
            return 1;
        }, "no priced window of scenario chat-short");
        assertThat(status).isEqualTo(Main.EXIT_FAILED);
        // one reason, the first: the missing windows follow from requests that all failed
        assertThat(printed()).contains("none of the run's 3 requests succeeded").doesNotContain("incomplete");
    }

    @Test
    void aFailedPartComesFirstWithHowToStartClean() {
        final AtomicBoolean asked = new AtomicBoolean();
        final int status = DemoExit.status(out, "streams-app failed: boom", dir, () -> {
            asked.set(true);
            return 0;
        }, "");
        assertThat(status).isEqualTo(Main.EXIT_FAILED);
        assertThat(asked).isFalse();
        assertThat(printed()).isEqualTo("The streams-app failed: boom. If .goodput was written by an older Goodput,"
                + " start clean with --fresh." + System.lineSeparator());
    }

    @Test
    void aFailedLoadGeneratorIsNotBlamedOnStaleData() {
        assertThat(DemoExit.status(out, "load generator failed: refused", dir, () -> 0, "")).isEqualTo(Main.EXIT_FAILED);
        assertThat(printed()).isEqualTo("The load generator failed: refused." + System.lineSeparator());
    }
}

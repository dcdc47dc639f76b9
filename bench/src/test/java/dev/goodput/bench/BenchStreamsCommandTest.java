package dev.goodput.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.goodput.records.TokenRuns;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchStreamsCommandTest {

    @Test
    void aRateHeapTheJvmWouldRefuseIsAUsageErrorBeforeAnythingStarts() {
        final StringWriter err = new StringWriter();
        final CommandLine cli = new CommandLine(new BenchStreamsCommand()).setErr(new PrintWriter(err));

        assertThat(cli.execute("--rate-heap", "2 GB")).isEqualTo(2);
        assertThat(err.toString()).contains("--rate-heap 2 GB: a size as -Xmx takes it, such as 512m or 2g");
    }

    @Test
    void theRateHeapIsTheLaunchersUnlessSaidOtherwise() throws IOException {
        // the rate is measured as users run the app: ./goodput's default heap
        final Matcher launcher = Pattern.compile("GOODPUT_JAVA_OPTS:--Xms(\\w+) -Xmx(\\w+)")
                .matcher(Files.readString(Path.of("..", "goodput")));
        assertThat(launcher.find()).as("the launcher's default heap").isTrue();
        assertThat(launcher.group(1)).isEqualTo(launcher.group(2));

        final BenchStreamsCommand c = new BenchStreamsCommand();
        new CommandLine(c).parseArgs();
        assertThat(c.rateHeap).isEqualTo(launcher.group(2));
        new CommandLine(c).parseArgs("--rate-heap", "512m");
        assertThat(c.rateHeap).isEqualTo("512m");
    }

    /** The rate is read from runs as the generator and the proxy publish them: their sink's interval, not a copy gone stale. */
    @Test
    void theRunIntervalIsTheProducersUnlessSaidOtherwise() {
        final BenchStreamsCommand c = new BenchStreamsCommand();
        new CommandLine(c).parseArgs();
        assertThat(c.runMs).isEqualTo(TokenRuns.PRODUCER_INTERVAL.toMillis());
        new CommandLine(c).parseArgs("--run-ms", "100");
        assertThat(c.runMs).isEqualTo(100);
    }
}

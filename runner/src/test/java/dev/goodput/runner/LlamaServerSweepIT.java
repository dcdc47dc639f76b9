package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.goodput.capture.LlamaServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep against a real engine (#62): llama-server with 2 slots of one thread serves some requests a
 * second of a short answer; above that its queue grows. {@code demo --sweep --target} searches the
 * rate and must find an operating point below the lowest rate that failed, that one failing.
 */
class LlamaServerSweepIT {

    private static final Pattern ANSWER = Pattern.compile("Operating point: ([0-9.]+) \\((\\S+)\\) meets the target with ([0-9.]+) %; ([0-9.]+) does not");

    @Test
    void aShortSweepFindsAnOperatingPointBelowTheLoadThatSaturatesTheSlots(@TempDir Path dir) throws Exception {
        try (LlamaServer server = LlamaServer.start(2, 2048)) {
            final Path matrix = dir.resolve("matrix.yaml");
            Files.writeString(matrix, "prompt_tokens: [32]\noutput_tokens: [16]\nrates_rps: [1]\ncache: [cold]\nduration_s: 8\n");
            // the random model's answers never contain the expected one: a floor of 0 lets its good tokens be priced
            final Path contract = EngineContract.write(dir);
            Files.writeString(contract, Files.readString(contract).replace("floor: 1.0", "floor: 0.0"));
            try (ChildCli demo = ChildCli.start("demo", "--fresh", "--data-dir", dir.resolve("data").toString(),
                    "--report-dir", dir.resolve("reports").toString(), "--contract", contract.toString(), "--matrix", matrix.toString(),
                    "--prices", "../config/prices.yaml", "--target", server.v1(), "--sweep", "--sweep-target", "slo:0.9",
                    "--sweep-resolution", "0.5", "--sweep-max", "64", "--duration", "900s")) {
                assertThat(demo.waitForExit()).as(demo.output()).isZero();
                final String out = demo.output();
                final Matcher a = ANSWER.matcher(out);
                assertThat(a.find()).as(out).isTrue();
                final double answer = Double.parseDouble(a.group(1));
                final double failing = Double.parseDouble(a.group(4));
                assertThat(Double.parseDouble(a.group(3))).isGreaterThanOrEqualTo(90.0);
                // how many requests a second the engine serves depends on how busy this machine is: the search may
                // halve below the start; what must hold is an answer below the lowest load that failed
                assertThat(answer).as(out).isPositive().isLessThan(failing);
                assertThat(failing).as("the engine saturates well before the cap").isLessThan(64);
                assertThat(out).contains("cost per successful 1M output tokens there: $");
            }
        }
    }
}

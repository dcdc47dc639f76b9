package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The production image's class path is runner/target/goodput-runner.jar and runner/target/lib (the
 * Dockerfile copies exactly these): no broker, no Scala, no benchmarks; every command that needs
 * none of them works, and one that needs the local broker is refused with what to do instead.
 */
class ImageClasspathIT {
    private static final Path JAR = Path.of("target", "goodput-runner.jar");
    private static final Path LIB = Path.of("target", "lib");

    private record Result(int code, String out, String err) {
    }

    private static Result run(String... args) throws IOException, InterruptedException {
        final List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", JAR + java.io.File.pathSeparator + LIB.resolve("*"), "dev.goodput.runner.Main"));
        cmd.addAll(List.of(args));
        final Path out = Files.createTempFile("image-out", ".txt");
        final Path err = Files.createTempFile("image-err", ".txt");
        final Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        // the bound only keeps a broken build from hanging; nothing here waits on anything slow
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("goodput " + String.join(" ", args) + " did not end");
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void theImageCarriesNoBrokerNoScalaAndNoBenchmarks() throws IOException {
        try (Stream<Path> jars = Files.list(LIB)) {
            assertThat(jars.map(j -> j.getFileName().toString()).toList())
                    .isNotEmpty()
                    .anyMatch(j -> j.startsWith("kafka-streams-"))
                    .noneMatch(j -> j.startsWith("kafka_2.13") || j.startsWith("kafka-server-") || j.startsWith("scala-")
                            || j.startsWith("goodput-embedded-kafka") || j.startsWith("goodput-bench"));
        }
    }

    @Test
    void everyCommandIsThereAndTheLocalBrokerIsRefusedWithWhatToDo() throws Exception {
        final Result help = run("--help");
        assertThat(help.code()).as(help.err()).isZero();
        assertThat(help.out()).contains("produce", "streams", "sink", "replay", "report").doesNotContain("bench-streams");
        final Result produce = run("produce", "--help");
        assertThat(produce.code()).as(produce.err()).isZero();

        final Result demo = run("demo", "--duration", "1s", "--contract", "../config/contract.yaml", "--matrix",
                "../config/scenarios.yaml", "--prices", "../config/prices.yaml");
        assertThat(demo.code()).as(demo.out() + demo.err()).isEqualTo(Main.EXIT_REFUSED);
        assertThat(demo.err()).contains("goodput demo needs the local broker").contains("--bootstrap-server")
                .doesNotContain("NoClassDefFoundError");
        final Result broker = run("broker", "--data-dir", Files.createTempDirectory("image-broker").toString());
        assertThat(broker.code()).as(broker.out() + broker.err()).isEqualTo(Main.EXIT_REFUSED);
        assertThat(broker.err()).contains("needs the local broker");
    }
}

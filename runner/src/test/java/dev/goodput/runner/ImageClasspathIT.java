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

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    /**
     * The image runs as a user of its own in a folder it cannot write (/app): a command there starts
     * without a single ERROR on stderr (Log4j used to fail a dozen times creating the broker log's
     * folder). Run here as nobody, in a folder nobody can write, where this user is root.
     */
    @Test
    void aNonRootUserInAnUnwritableFolderStartsClean(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/sbin/runuser")),
                "needs root and runuser to start a command as another user");
        final Path app = Files.createDirectories(dir.resolve("app"));
        Files.copy(JAR, app.resolve("goodput-runner.jar"));
        Files.createDirectories(app.resolve("lib"));
        try (Stream<Path> jars = Files.list(LIB)) {
            for (Path j : jars.toList()) {
                Files.copy(j, app.resolve("lib").resolve(j.getFileName()));
            }
        }
        final Path work = Files.createDirectories(dir.resolve("work"));
        for (Path p : List.of(dir, app, app.resolve("lib"), work)) {
            Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString("r-xr-xr-x"));
        }
        try (Stream<Path> files = Files.walk(app)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.setPosixFilePermissions(f, java.nio.file.attribute.PosixFilePermissions.fromString("r--r--r--"));
            }
        }
        final Path err = Files.createTempFile("image-nobody-err", ".txt");
        // a broker that does not exist: the command fails with its one line, and must say nothing else
        final Process p = new ProcessBuilder("/usr/sbin/runuser", "-u", "nobody", "--",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", app.resolve("goodput-runner.jar") + java.io.File.pathSeparator + app.resolve("lib").resolve("*"),
                "dev.goodput.runner.Main", "prices", "--bootstrap-server", "127.0.0.1:1", "--file",
                Path.of("../config/prices.yaml").toAbsolutePath().toString())
                .directory(work.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        final String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(stderr).as(stderr).doesNotContain("ERROR").doesNotContain("Exception").contains("goodput:");
        for (Path q : List.of(dir, app, app.resolve("lib"), work)) {
            Files.setPosixFilePermissions(q, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }
}

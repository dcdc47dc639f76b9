package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** The {@code goodput} command in a child JVM, as a user runs it in a terminal: read its output, press Ctrl-C. */
final class ChildCli implements AutoCloseable {

    private final Process process;
    private final BufferedReader out;
    private final List<String> lines = new ArrayList<>();

    private ChildCli(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Short windows for a demo whose test reads no window length: its closing wait (a window and its
     * grace of ticks) is 7 s instead of the production 15 s. The grace stays the production 5 s, so an
     * event may reach the log as late as a production run allows (a loaded machine delays publishing),
     * not later. The README's demo in .ci/run keeps the production windows.
     */
    static final Map<String, String> SHORT_WINDOWS = Map.of("GOODPUT_WINDOW", "2s", "GOODPUT_GRACE", "5s");

    static ChildCli start(String... args) throws IOException {
        return start(Map.of(), args);
    }

    /** The same with extra environment variables (an API key, GOODPUT_* overrides). */
    static ChildCli start(Map<String, String> env, String... args) throws IOException {
        final List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvmFlags());
        cmd.addAll(List.of("-Xmx1g", "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=dev.goodput",
                // the logging a user's terminal gets, not the tests' own
                "-Dlog4j2.configurationFile=" + Path.of("target", "classes", "log4j2.xml").toAbsolutePath(),
                "-Dgoodput.broker.log=" + Path.of("target", "child-broker.log").toAbsolutePath(), "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        cmd.addAll(List.of(args));
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        return new ChildCli(pb.start());
    }

    /** The test JVM's own -XX: flags (the build's test.jvm.flags: C1 only, serial GC), so a child costs what the fork does. */
    private static List<String> jvmFlags() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(a -> a.startsWith("-XX:")).toList();
    }

    /** Reads output until a line starts with {@code prefix} and returns it; fails if the process ends first. */
    String awaitLine(String prefix) throws IOException {
        return await(l -> l.startsWith(prefix), "starting with '" + prefix + "'");
    }

    /** Reads output until a line contains {@code text} and returns it; fails if the process ends first. */
    String awaitContaining(String text) throws IOException {
        return await(l -> l.contains(text), "containing '" + text + "'");
    }

    private String await(Predicate<String> wanted, String what) throws IOException {
        String line;
        while ((line = out.readLine()) != null) {
            lines.add(line);
            if (wanted.test(line)) {
                return line;
            }
        }
        throw new AssertionError("no line " + what + " before the process ended:\n" + output());
    }

    /** Sends SIGTERM, as a service manager stops a process, and waits for the exit. */
    int terminateAndWait() throws Exception {
        // kill(1), not Process.destroy(), which also closes the output this reads
        assertThat(new ProcessBuilder("kill", "-TERM", Long.toString(process.pid())).start().waitFor()).isZero();
        return waitForExit();
    }

    /** Sends SIGINT, what Ctrl-C sends, then reads the rest of the output and waits for the exit. */
    String interruptAndWait() throws Exception {
        interrupt();
        return awaitEnd();
    }

    /** Sends SIGINT and returns at once (several children stopping together). */
    void interrupt() throws Exception {
        assertThat(new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor()).isZero();
    }

    /** Reads the rest of the output and waits for the exit after {@link #interrupt}. */
    String awaitEnd() throws Exception {
        String line;
        while ((line = out.readLine()) != null) {
            lines.add(line);
        }
        assertThat(process.waitFor(150, TimeUnit.SECONDS)).as("exited after Ctrl-C").isTrue();
        return output();
    }

    /** Reads the output to the end and returns the exit code. */
    int waitForExit() throws Exception {
        String line;
        while ((line = out.readLine()) != null) {
            lines.add(line);
        }
        assertThat(process.waitFor(150, TimeUnit.SECONDS)).as("exited").isTrue();
        return process.exitValue();
    }

    String output() {
        return String.join("\n", lines);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}

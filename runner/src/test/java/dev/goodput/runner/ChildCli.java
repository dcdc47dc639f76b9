package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** The {@code goodput} command in a child JVM, as a user runs it in a terminal: read its output, press Ctrl-C. */
final class ChildCli implements AutoCloseable {

    /** How long a child may take to exit once it was told to stop (or its output ended). */
    private static final long EXIT_WAIT_S = 150;

    private final Process process;
    private final BufferedReader out;
    /** Read by the test's thread, or by {@link #awaitExit}'s reader while the test waits for the exit. */
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());

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
        final List<String> cmd = new ArrayList<>(DEFAULT_SIGINT);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
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

    /**
     * A child inherits an ignored SIGINT (a build started in the background by a shell without job
     * control, {@code nohup mvn verify &}), and a JVM that starts with SIGINT ignored installs no
     * handler for it: Ctrl-C would never reach the command under test, and the test would wait for
     * an exit that cannot come. coreutils' {@code env --default-signal} gives the child the default
     * disposition back; where that option is missing, the child starts as it is.
     */
    private static final List<String> DEFAULT_SIGINT = defaultSigint();

    private static List<String> defaultSigint() {
        final List<String> wrapper = List.of("env", "--default-signal=INT");
        try {
            final List<String> probe = new ArrayList<>(wrapper);
            probe.add("true");
            return new ProcessBuilder(probe).redirectErrorStream(true).start().waitFor() == 0 ? wrapper : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
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
        awaitExit("exited within " + EXIT_WAIT_S + " s after Ctrl-C");
        return output();
    }

    /** Reads the output to the end and returns the exit code. */
    int waitForExit() throws Exception {
        awaitExit("exited within " + EXIT_WAIT_S + " s");
        return process.exitValue();
    }

    /**
     * Waits up to {@link #EXIT_WAIT_S} for the exit while a reader drains the output (a child blocked on
     * a full pipe never exits). The wait is bounded whatever the child does: reading to the end of its
     * output first, as this once did, waits for ever on a child that does not exit, so the suite hung
     * instead of failing.
     */
    private void awaitExit(String what) throws Exception {
        final Thread reader = new Thread(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException closed) {
                // the process was destroyed below: what was read is kept
            }
        }, "child-cli-output");
        reader.setDaemon(true);
        reader.start();
        final boolean exited = process.waitFor(EXIT_WAIT_S, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly();
        }
        // the output ends once the process and anything that shares its stdout are gone; until then
        // what was read is not the whole of it, and a test must not pass on part of it
        reader.join(TimeUnit.SECONDS.toMillis(EXIT_WAIT_S));
        assertThat(exited).as(what + "; its output:%n%s", output()).isTrue();
        assertThat(reader.isAlive()).as("output ended within " + EXIT_WAIT_S + " s of the exit; so far:%n%s", output()).isFalse();
    }

    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}

package dev.goodput.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.goodput.kafka.EmbeddedKafka;

/**
 * A JVM on this process's classpath, for benchmarks that must not count another component's CPU
 * (a broker, a simulator, the measured app) as theirs. The child prints a ready line
 * ({@code prefix=value}) and stops when its standard input closes, when it is destroyed, or when
 * this JVM has gone ({@link OrphanGuard}).
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final String value;
    private final Path log;
    private Path scratch;

    private ChildJvm(Process process, String value, Path log) {
        this.process = process;
        this.value = value;
        this.log = log;
    }

    /**
     * This JVM's own {@code -XX:} flags (its collector, its JIT), for a child that is to run alike; a
     * flight recording stays this JVM's.
     */
    static List<String> inheritedFlags() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-XX:") && !a.contains("FlightRecording")).toList();
    }

    /** Starts {@code mainClass} and waits for its line starting with {@code readyPrefix}. */
    public static ChildJvm start(List<String> jvmArgs, String mainClass, String readyPrefix, String... args)
            throws IOException {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-Dorg.apache.avro.SERIALIZABLE_PACKAGES=dev.goodput", "-cp", System.getProperty("java.class.path"),
                OrphanGuard.class.getName(), mainClass));
        cmd.addAll(List.of(args));
        // its log goes to a file, so that a child that died can be diagnosed; removed when it closes normally
        final Path log = Files.createTempFile("goodput-child-", ".log");
        final Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        final BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = r.readLine()) != null) {
            if (line.startsWith(readyPrefix)) {
                final Thread drain = new Thread(() -> {
                    try {
                        while (r.readLine() != null) {
                            // keep the pipe from filling up
                        }
                    } catch (IOException ignored) {
                        // the child is gone
                    }
                }, "child-output");
                drain.setDaemon(true);
                drain.start();
                return new ChildJvm(p, line.substring(readyPrefix.length()).trim(), log);
            }
        }
        throw new IOException(mainClass + " exited before it was ready; its log: " + log);
    }

    /** What followed the ready prefix (an address or a port). */
    public String value() {
        return value;
    }

    public long pid() {
        return process.pid();
    }

    /**
     * Hands the child a directory of its own (a state directory) to be removed, with what it holds,
     * once the child has exited: the child cannot remove it itself when it is killed.
     */
    public ChildJvm removingOnClose(Path dir) {
        this.scratch = dir;
        return this;
    }

    @Override
    public void close() throws IOException {
        if (!process.isAlive()) {
            removeScratch();
            throw new IOException("child JVM " + process.pid() + " died before it was closed (exit " + process.exitValue()
                    + "); its log: " + log);
        }
        process.getOutputStream().close();
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        Files.deleteIfExists(log);
        removeScratch();
    }

    private void removeScratch() {
        if (scratch != null) {
            EmbeddedKafka.deleteRecursively(scratch);
        }
    }

    /**
     * A fixed heap (one that grows would size the young generation differently from run to run), and
     * this JVM's own {@code -XX:} flags (its collector first of all): a reader run in this JVM and
     * one in a child then run alike.
     */
    static List<String> fixedHeap(String heap) {
        final List<String> flags = new java.util.ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap));
        flags.addAll(inheritedFlags());
        return flags;
    }

    /** The collectors this JVM runs, by the names the JVM gives them ("G1 Young Generation", "PS Scavenge"). */
    static String collectors() {
        return java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(java.lang.management.GarbageCollectorMXBean::getName).collect(java.util.stream.Collectors.joining(", "));
    }
}

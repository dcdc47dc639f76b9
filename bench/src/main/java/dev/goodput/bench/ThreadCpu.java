package dev.goodput.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of a child JVM's threads by kind, read from Linux's {@code /proc/<pid>/task/<tid>/stat}
 * without disturbing the JVM. Two snapshots give the cores each kind used between them: whether an
 * app's stream thread had its core, and whether its JIT was still compiling. The scheduler's own
 * account ({@code schedstat}: time on a core, time runnable but waiting for one) tells the two
 * reasons a thread is off its core apart: waiting for a core (the machine is short of them) or
 * having nothing to run (blocked on the broker, asleep). The kernel keeps the
 * first 15 bytes of a thread's name; Kafka Streams names its threads after the client id, which
 * starts with the application id, so those are recognised by that prefix (the stream thread, and
 * the state updater, idle in these runs).
 */
final class ThreadCpu {

    static final String STREAM = "stream threads";
    static final String JIT = "JIT compilers";
    static final String GC = "GC";
    static final String OTHER = "other";
    private static final List<String> KINDS = List.of(STREAM, JIT, GC, OTHER);
    /** The length of a thread name the kernel keeps (TASK_COMM_LEN less the terminating zero). */
    private static final int COMM_LENGTH = 15;
    /** USER_HZ, the unit of the stat file's times: 100 on every Linux this runs on. */
    private static final double TICKS_PER_SECOND = 100;

    /**
     * Seconds of CPU per thread kind at one instant, and seconds each kind spent runnable but waiting
     * for a core (empty where the kernel keeps no {@code schedstat}).
     */
    record Snapshot(long atNanos, Map<String, Double> cpuSeconds, Map<String, Double> waitSeconds) {
        Snapshot(long atNanos, Map<String, Double> cpuSeconds) {
            this(atNanos, cpuSeconds, Map.of());
        }
    }

    private ThreadCpu() {
    }

    static String kind(String comm, String applicationId) {
        if (comm.startsWith(applicationId.substring(0, Math.min(COMM_LENGTH, applicationId.length())))) {
            return STREAM;
        }
        if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
            return JIT;
        }
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
            return GC;
        }
        return OTHER;
    }

    /**
     * One thread's name and its user + system CPU in ticks from its stat line, whose name (in
     * parentheses) may itself hold spaces and parentheses.
     */
    static Map.Entry<String, Long> parseStat(String stat) {
        final int open = stat.indexOf('(');
        final int close = stat.lastIndexOf(')');
        final String[] rest = stat.substring(close + 2).trim().split(" ");
        // after the name: state, ppid, pgrp, session, tty, tpgid, flags, minflt, cminflt, majflt, cmajflt, utime, stime
        return Map.entry(stat.substring(open + 1, close), Long.parseLong(rest[11]) + Long.parseLong(rest[12]));
    }

    /**
     * A {@code schedstat} line: nanoseconds on a core, nanoseconds runnable but waiting for one
     * (and the number of times it ran, not kept).
     */
    static long[] parseSchedstat(String line) {
        final String[] f = line.trim().split(" ");
        return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
    }

    /** The calling thread's {@link #parseSchedstat} numbers; null where the kernel keeps none. */
    static long[] self() {
        try {
            return parseSchedstat(Files.readString(Path.of("/proc/thread-self/schedstat"), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** A snapshot of the JVM {@code pid}; null where /proc cannot give one (then nothing is reported). */
    static Snapshot take(long pid, String applicationId) {
        final Map<String, Double> seconds = new TreeMap<>();
        final Map<String, Double> waits = new TreeMap<>();
        boolean waited = true;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    final Map.Entry<String, Long> t = parseStat(Files.readString(task.resolve("stat"), StandardCharsets.UTF_8));
                    final String kind = kind(t.getKey(), applicationId);
                    seconds.merge(kind, t.getValue() / TICKS_PER_SECOND, Double::sum);
                    final Path sched = task.resolve("schedstat");
                    if (waited && Files.exists(sched)) {
                        waits.merge(kind, parseSchedstat(Files.readString(sched, StandardCharsets.UTF_8))[1] / 1e9, Double::sum);
                    } else {
                        waited = false;
                    }
                } catch (IOException ended) {
                    // a thread that ended between the listing and the read
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return seconds.isEmpty() ? null : new Snapshot(System.nanoTime(), seconds, waited ? waits : Map.of());
    }

    /** Cores each kind used between two snapshots, in a fixed order. */
    static Map<String, Double> cores(Snapshot from, Snapshot to) {
        final Map<String, Double> cores = new LinkedHashMap<>();
        for (String k : KINDS) {
            cores.put(k, share(from.cpuSeconds(), to.cpuSeconds(), k, from, to));
        }
        return cores;
    }

    /** Seconds a kind gained between two snapshots' counts, over the seconds between the snapshots. */
    private static double share(Map<String, Double> fromSeconds, Map<String, Double> toSeconds, String kind, Snapshot from,
                                Snapshot to) {
        return (toSeconds.getOrDefault(kind, 0.0) - fromSeconds.getOrDefault(kind, 0.0)) / ((to.atNanos() - from.atNanos()) / 1e9);
    }

    /** Cores the stream threads used between two snapshots; NaN where either is missing. */
    static double streamCores(Snapshot from, Snapshot to) {
        if (from == null || to == null || to.atNanos() <= from.atNanos()) {
            return Double.NaN;
        }
        return cores(from, to).get(STREAM);
    }

    /** Cores all threads used between two snapshots: "0.62 cores", or "not measured". */
    static String describeTotal(Snapshot from, Snapshot to) {
        if (from == null || to == null || to.atNanos() <= from.atNanos()) {
            return "not measured";
        }
        final double total = cores(from, to).values().stream().mapToDouble(Double::doubleValue).sum();
        return String.format(Locale.ROOT, "%.2f cores", total);
    }

    /**
     * "stream threads 0.85, JIT compilers 0.04, GC 0.07, other 0.05 cores; the stream threads waited
     * for a core 0.12 of the time", or "not measured" (the last clause only where the kernel keeps
     * schedstat).
     */
    static String describe(Snapshot from, Snapshot to) {
        if (from == null || to == null || to.atNanos() <= from.atNanos()) {
            return "not measured";
        }
        final StringBuilder b = new StringBuilder();
        cores(from, to).forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k)
                .append(String.format(Locale.ROOT, " %.2f", v)));
        b.append(" cores");
        if (!from.waitSeconds().isEmpty() && !to.waitSeconds().isEmpty()) {
            b.append(String.format(Locale.ROOT, "; the stream threads waited for a core %.2f of the time",
                    share(from.waitSeconds(), to.waitSeconds(), STREAM, from, to)));
        }
        return b.toString();
    }

    /** utime + stime of a process, in clock ticks (100 per second on Linux). */
    static long cpuTicks(long pid) throws java.io.IOException {
        final String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}

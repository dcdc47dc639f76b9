package dev.goodput.capture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling class of the generator's two timing threads: the dispatcher, which wakes at each
 * intended send time, and the HTTP selector, which stamps each chunk as it reads it.
 *
 * <p>On a loaded machine (the target, a broker and the generator's own publishing on few cores) a
 * normal thread that wakes must wait for a core, and that wait lands in the measurement: it is
 * added to the dispatch lateness, and to every chunk time read after it. A real-time thread
 * (SCHED_FIFO) pre-empts normal threads when it wakes. Both timing threads block between their
 * short bursts of work, so they take little CPU from anything else, and the kernel's real-time
 * throttling caps them in any case. The JVM's stop-the-world threads (VM thread, GC workers) are
 * raised with them: a pause stops the timing threads, and a pause whose GC workers wait for a core
 * lasts longer.
 *
 * <p>Java has no API for it, so it is set with {@code chrt} (util-linux) on the thread's own id, on
 * Linux only. Raising a thread needs CAP_SYS_NICE (root has it; containers may not).
 */
public enum TimingPriority {
    /** Real-time when the system allows it and has two cores or more, else normal, saying so in the log. */
    AUTO,
    /** Real-time, or the generator refuses to start. */
    REALTIME,
    /** The threads keep the normal scheduling class. */
    NORMAL;

    /** SCHED_FIFO priority: the lowest real-time level, above every normal thread and below the kernel's own. */
    static final int FIFO_PRIORITY = 1;
    /** Linux scheduling policy numbers, as /proc shows them. */
    static final int SCHED_OTHER = 0;
    static final int SCHED_FIFO = 1;

    private static final Logger LOG = LoggerFactory.getLogger(TimingPriority.class);

    /** Parses a flag or config value: auto, realtime or normal. */
    public static TimingPriority parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("timing priority '" + value + "' is not one of auto, realtime, normal");
        }
    }

    /**
     * Applies this setting to the calling thread.
     *
     * @return what the thread now runs at, for the log
     * @throws Refused under {@link #REALTIME} when the system refuses
     */
    public String applyToCurrentThread(String role) {
        if (this == NORMAL) {
            return "normal";
        }
        if (this == AUTO && Runtime.getRuntime().availableProcessors() < 2) {
            // with one core, a busy real-time selector would leave the parser and publisher almost no time
            return "normal (one core)";
        }
        final String refusal = setCurrentThread(List.of("-f", "-p", Integer.toString(FIFO_PRIORITY)));
        if (refusal == null) {
            final int raised = raisePauseThreads();
            return "real-time (SCHED_FIFO " + FIFO_PRIORITY + "; " + raised + " JVM pause threads too)";
        }
        if (this == REALTIME) {
            throw new Refused("cannot give the " + role + " thread real-time priority: " + refusal
                    + "; run as root or with CAP_SYS_NICE, or pass --timing-priority auto or normal");
        }
        LOG.info("{} thread keeps normal priority ({}); its timing may include waits for a core", role, refusal);
        return "normal (" + refusal + ")";
    }

    /** A thread started at a scheduling class, and what it got. */
    public record Started(Thread thread, String applied) {
    }

    /**
     * Starts a daemon thread that applies this setting to itself and then runs {@code body}; returns
     * once the setting is applied, with what the thread got.
     *
     * @throws Refused under {@link #REALTIME} when the system refuses (the body never runs)
     */
    public Started start(String threadName, String role, Runnable body) {
        final CompletableFuture<String> applied = new CompletableFuture<>();
        final Thread t = new Thread(() -> {
            try {
                applied.complete(applyToCurrentThread(role));
            } catch (RuntimeException e) {
                applied.completeExceptionally(e);
                return;
            }
            body.run();
        }, threadName);
        t.setDaemon(true);
        t.start();
        try {
            return new Started(t, applied.join());
        } catch (CompletionException e) {
            throw (RuntimeException) e.getCause();
        }
    }

    /** Returns the calling thread to the normal scheduling class, if it was raised. */
    public void restoreCurrentThread() {
        try {
            if (this == NORMAL || policy(Path.of("/proc/thread-self/stat")) != SCHED_FIFO) {
                return;
            }
        } catch (IOException | RuntimeException notLinux) {
            return;
        }
        setCurrentThread(List.of("-o", "-p", "0"));
    }

    /** {@link #REALTIME} was asked for and the system refused it. */
    public static final class Refused extends IllegalStateException {
        Refused(String message) {
            super(message);
        }
    }

    /**
     * Raises the JVM's stop-the-world threads (the VM thread and the GC workers). While they run, the
     * timing threads are stopped too, so a pause that waits for a core stretches every timing it
     * overlaps. They sleep between pauses.
     */
    static int raisePauseThreads() {
        int raised = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                final String comm;
                try {
                    comm = Files.readString(task.resolve("comm"), StandardCharsets.US_ASCII).trim();
                } catch (IOException gone) { // the thread ended
                    continue;
                }
                if (!comm.equals("VM Thread") && !comm.startsWith("GC Thread#")) {
                    continue;
                }
                // GC workers start as they are first needed: each scenario's start looks again
                final int policy;
                try {
                    policy = policy(task.resolve("stat"));
                } catch (IOException gone) { // ended between the two reads: the others still count
                    continue;
                }
                if (policy == SCHED_FIFO
                        || chrt(List.of("-f", "-p", Integer.toString(FIFO_PRIORITY)), task.getFileName().toString()) == null) {
                    raised++;
                }
            }
        } catch (IOException e) {
            LOG.debug("listing the JVM's threads: {}", e.toString());
        }
        return raised;
    }

    /** Runs chrt with the given arguments on the calling thread; null when it worked, else why not. */
    static String setCurrentThread(List<String> args) {
        final String tid;
        try {
            // "/proc/thread-self" links to "<pid>/task/<tid>"
            tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
        } catch (IOException | UnsupportedOperationException e) {
            return "not Linux (no /proc/thread-self)";
        }
        return chrt(args, tid);
    }

    private static String chrt(List<String> args, String tid) {
        final List<String> cmd = new ArrayList<>();
        cmd.add("chrt");
        cmd.addAll(args);
        cmd.add(tid);
        try {
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "chrt did not finish";
            }
            return p.exitValue() == 0 ? null : "chrt: " + (output.isEmpty() ? "exit " + p.exitValue() : output);
        } catch (IOException e) {
            return "chrt not found (util-linux)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** A thread's scheduling policy from its /proc stat file (field 41), e.g. {@link #SCHED_FIFO}. */
    static int policy(Path statFile) throws IOException {
        final String stat = Files.readString(statFile, StandardCharsets.US_ASCII);
        // the command name (field 2) may hold spaces and parentheses: count fields after its closing one
        final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Integer.parseInt(fields[41 - 3]);
    }
}

package dev.goodput.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Lowers the scheduling priority (raises the nice value) of the proxy's observing threads: the
 * observing worker, the publisher, the ticker and Kafka's sender. Under CPU contention the threads
 * that forward and time the bytes then go first, and observing catches up when the machine has
 * room. Raising a nice value needs no privilege. Java has no API for it, so it is set with
 * util-linux's {@code renice} on each thread's id, found by its name in {@code /proc/self/task}
 * (the kernel keeps a name's first 15 bytes).
 */
final class ObserverNice {

    /**
     * The observing threads' names, as the kernel keeps them: the proxy's worker, the sink's
     * publisher and ticker, Kafka's sender (ProxyIT checks them against the real threads); never
     * the selector thread, {@code goodput-proxy-nio}.
     */
    static final List<String> THREADS = List.of("goodput-proxy-o", "goodput-publish", "goodput-ticker", "kafka-producer-");

    /** How long to look for threads that have not named themselves yet. */
    private static final long FIND_WITHIN_MS = 2_000;

    private ObserverNice() {
    }

    /** This JVM's threads named by one of {@code prefixes}: thread id to the prefix that names it. */
    private static Map<String, String> threads(List<String> prefixes) throws IOException {
        final Map<String, String> found = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    final String comm = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip();
                    prefixes.stream().filter(comm::startsWith).findFirst().ifPresent(p -> found.put(task.getFileName().toString(), p));
                } catch (IOException ended) {
                    // a thread that ended between the listing and the read
                }
            }
        }
        return found;
    }

    /**
     * Sets {@code nice} on every observing thread of this JVM.
     *
     * @return what was done, to be said on start: "nice 10 on 4 observing threads", or why not
     */
    static String apply(int nice) {
        return apply(nice, THREADS);
    }

    /**
     * Sets {@code nice} on every thread of this JVM whose kernel name starts with one of
     * {@code prefixes}. A thread gives the kernel its name once it runs, which on a loaded machine
     * can be after the code that started it has gone on: so this looks again, for up to
     * {@link #FIND_WITHIN_MS}, until every prefix names a thread.
     */
    static String apply(int nice, List<String> prefixes) {
        if (nice < 1 || nice > 19) {
            throw new IllegalArgumentException("the observing threads' nice is 1 to 19, was " + nice);
        }
        final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FIND_WITHIN_MS);
        Map<String, String> found;
        while (true) {
            try {
                found = threads(prefixes);
            } catch (IOException | RuntimeException e) {
                return "not lowered (no /proc/self/task: " + e.getMessage() + ")";
            }
            if (found.values().containsAll(prefixes) || System.nanoTime() > until) {
                break;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (found.isEmpty()) {
            return "not lowered (no observing thread found)";
        }
        final List<String> tids = new ArrayList<>(found.keySet());
        final List<String> cmd = new ArrayList<>(List.of("renice", "-n", Integer.toString(nice), "-p"));
        cmd.addAll(tids);
        try {
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "not lowered (renice: " + (output.isEmpty() ? "failed" : output) + ")";
            }
        } catch (IOException e) {
            return "not lowered (renice not found: util-linux)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "not lowered (interrupted)";
        }
        return String.format(Locale.ROOT, "nice %d on %d observing threads", nice, tids.size());
    }
}

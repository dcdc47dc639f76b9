package dev.goodput.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

class TimingPriorityTest {

    private static final Path SELF = Path.of("/proc/thread-self/stat");

    /**
     * Whether this system lets a process run real-time, found without the code under test: chrt
     * runs a command at SCHED_FIFO. Where it does (root here, and in CI), AUTO must report and be
     * real-time, so a regression that silently leaves the threads normal fails these tests.
     */
    private static boolean systemAllowsRealTime() throws Exception {
        if (Runtime.getRuntime().availableProcessors() < 2) {
            return false;
        }
        try {
            return new ProcessBuilder("chrt", "-f", "1", "true").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException noChrt) {
            return false;
        }
    }

    /** Scheduling policies of this JVM's threads whose name starts with {@code prefix}. */
    private static List<Integer> policiesOfThreads(String prefix) throws IOException {
        final List<Integer> policies = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                // a thread listed a moment ago (a JIT compiler or GC worker, say) may have ended since
                try {
                    if (Files.readString(task.resolve("comm")).startsWith(prefix)) {
                        policies.add(TimingPriority.policy(task.resolve("stat")));
                    }
                } catch (java.nio.file.NoSuchFileException ended) {
                    continue;
                }
            }
        }
        return policies;
    }

    @Test
    void parsesTheThreeSettingsAndNamesTheChoicesOtherwise() {
        assertEquals(TimingPriority.AUTO, TimingPriority.parse("auto"));
        assertEquals(TimingPriority.REALTIME, TimingPriority.parse(" RealTime "));
        assertEquals(TimingPriority.NORMAL, TimingPriority.parse("normal"));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TimingPriority.parse("fifo"));
        assertTrue(e.getMessage().contains("'fifo'") && e.getMessage().contains("auto, realtime, normal"), e.getMessage());
    }

    @Test
    void readsThePolicyFieldEvenWhenTheThreadNameHoldsParenthesesAndSpaces() throws IOException {
        final Path stat = Files.createTempFile("stat", "");
        final List<String> after = new ArrayList<>();
        for (int field = 3; field <= 52; field++) {
            after.add(field == 41 ? "1" : field == 40 ? "7" : "0");
        }
        Files.writeString(stat, "4242 (a (b) c) " + String.join(" ", after) + "\n");
        try {
            assertEquals(TimingPriority.SCHED_FIFO, TimingPriority.policy(stat));
        } finally {
            Files.delete(stat);
        }
    }

    @Test
    void autoRaisesTheThreadWhenItSaysSoAndRestoreReturnsItToNormal() throws Exception {
        assumeTrue(Files.exists(SELF), "Linux only");
        final AtomicReference<Object> result = new AtomicReference<>();
        final Thread t = new Thread(() -> {
            try {
                final String applied = TimingPriority.AUTO.applyToCurrentThread("test");
                final int raised = TimingPriority.policy(SELF);
                TimingPriority.AUTO.restoreCurrentThread();
                result.set(new Object[] {applied, raised, TimingPriority.policy(SELF)});
            } catch (IOException | RuntimeException e) {
                result.set(e);
            }
        });
        t.start();
        t.join();
        if (result.get() instanceof Exception e) {
            throw e;
        }
        final Object[] r = (Object[]) result.get();
        final String applied = (String) r[0];
        assertEquals(systemAllowsRealTime(), applied.startsWith("real-time"), applied);
        // what it reports is what the kernel holds
        assertEquals(applied.startsWith("real-time") ? TimingPriority.SCHED_FIFO : TimingPriority.SCHED_OTHER, r[1], applied);
        assertEquals(TimingPriority.SCHED_OTHER, r[2]);
    }

    @Test
    void realTimeTimingThreadsBringTheJvmPauseThreadsWithThem() throws Exception {
        assumeTrue(Files.exists(SELF), "Linux only");
        final AtomicReference<String> applied = new AtomicReference<>();
        final Thread t = new Thread(() -> {
            applied.set(TimingPriority.AUTO.applyToCurrentThread("test"));
            TimingPriority.AUTO.restoreCurrentThread();
        });
        t.start();
        t.join();
        final List<Integer> vmThread = policiesOfThreads("VM Thread\n");
        assertEquals(1, vmThread.size(), "one VM Thread");
        assertEquals(systemAllowsRealTime(), applied.get().startsWith("real-time"), applied.get());
        if (applied.get().startsWith("real-time")) {
            assertTrue(applied.get().contains("JVM pause threads"), applied.get());
            assertEquals(TimingPriority.SCHED_FIFO, vmThread.get(0), applied.get());
        } else {
            assertEquals(TimingPriority.SCHED_OTHER, vmThread.get(0), applied.get());
        }
    }

    @Test
    void normalLeavesTheThreadAlone() throws Exception {
        assumeTrue(Files.exists(SELF), "Linux only");
        assertEquals("normal", TimingPriority.NORMAL.applyToCurrentThread("test"));
        assertEquals(TimingPriority.SCHED_OTHER, TimingPriority.policy(SELF));
    }

    @Test
    void theSelectorThreadRunsAtThePriorityTheClientReports() throws Exception {
        assumeTrue(Files.exists(SELF), "Linux only");
        try (NioHttpClient client = new NioHttpClient(1, TimingPriority.AUTO)) {
            assertEquals(systemAllowsRealTime(), client.selectorPriority().startsWith("real-time"),
                    client.selectorPriority());
            final int expected = client.selectorPriority().startsWith("real-time")
                    ? TimingPriority.SCHED_FIFO : TimingPriority.SCHED_OTHER;
            final List<Integer> policies = policiesOfThreads("goodput-nio-ht");
            assertFalse(policies.isEmpty(), "no selector thread found");
            assertTrue(policies.contains(expected), client.selectorPriority() + " but policies " + policies);
        }
    }
}

package dev.goodput.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

class ThreadCpuTest {

    /** Written by the spinning thread, so its loop is work the JIT cannot drop. */
    private static volatile long spins;

    @Test
    void threadsAreToldApartByTheNameTheKernelKeeps() {
        assertThat(ThreadCpu.kind("bench-rate-984e", "bench-rate")).isEqualTo(ThreadCpu.STREAM);
        assertThat(ThreadCpu.kind("bench-noop-befo", "bench-noop-before")).isEqualTo(ThreadCpu.STREAM);
        assertThat(ThreadCpu.kind("C2 CompilerThre", "bench-rate")).isEqualTo(ThreadCpu.JIT);
        assertThat(ThreadCpu.kind("GC Thread#1", "bench-rate")).isEqualTo(ThreadCpu.GC);
        assertThat(ThreadCpu.kind("G1 Conc#0", "bench-rate")).isEqualTo(ThreadCpu.GC);
        assertThat(ThreadCpu.kind("kafka-producer-", "bench-rate")).isEqualTo(ThreadCpu.OTHER);
    }

    @Test
    void aStatLineGivesUserPlusSystemTicksWhateverTheNameHolds() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        final Map.Entry<String, Long> t = ThreadCpu.parseStat(
                "4242 (a (b) c) S 1 4242 4242 0 -1 4194368 120 0 0 0 731 42 0 0 20 0 30 0 1000 0 0");
        assertThat(t.getKey()).isEqualTo("a (b) c");
        assertThat(t.getValue()).isEqualTo(773L);
    }

    @Test
    void coresAreCpuTimeOverTheTimeBetweenSnapshots() {
        final ThreadCpu.Snapshot a = new ThreadCpu.Snapshot(0, Map.of(ThreadCpu.STREAM, 1.0, ThreadCpu.JIT, 0.5));
        final ThreadCpu.Snapshot b = new ThreadCpu.Snapshot(2_000_000_000L,
                Map.of(ThreadCpu.STREAM, 2.7, ThreadCpu.JIT, 0.6, ThreadCpu.GC, 0.1));
        final Map<String, Double> cores = ThreadCpu.cores(a, b);
        assertThat(cores.get(ThreadCpu.STREAM)).isCloseTo(0.85, within(1e-9));
        assertThat(cores.get(ThreadCpu.JIT)).isCloseTo(0.05, within(1e-9));
        assertThat(cores.get(ThreadCpu.GC)).isCloseTo(0.05, within(1e-9));
        assertThat(ThreadCpu.describe(a, b)).isEqualTo("stream threads 0.85, JIT compilers 0.05, GC 0.05, other 0.00 cores");
        assertThat(ThreadCpu.describe(null, b)).isEqualTo("not measured");
        assertThat(ThreadCpu.describeTotal(a, b)).isEqualTo("0.95 cores");
        assertThat(ThreadCpu.streamCores(a, b)).isCloseTo(0.85, within(1e-9));
        assertThat(ThreadCpu.streamCores(null, b)).isNaN();
        assertThat(ThreadCpu.describeTotal(a, null)).isEqualTo("not measured");
    }

    @Test
    void aSchedstatLineGivesTimeOnACoreThenTimeWaitingForOne() {
        assertThat(ThreadCpu.parseSchedstat("3773069 602711 3\n")).containsExactly(3773069L, 602711L);
    }

    @Test
    void theStreamThreadsWaitIsItsRunnableTimeOffACoreOverTheTimeBetweenSnapshots() {
        final ThreadCpu.Snapshot a = new ThreadCpu.Snapshot(0, Map.of(ThreadCpu.STREAM, 1.0),
                Map.of(ThreadCpu.STREAM, 0.5, ThreadCpu.JIT, 0.2));
        final ThreadCpu.Snapshot b = new ThreadCpu.Snapshot(2_000_000_000L, Map.of(ThreadCpu.STREAM, 2.2),
                Map.of(ThreadCpu.STREAM, 0.92, ThreadCpu.JIT, 0.9));
        assertThat(ThreadCpu.describe(a, b)).isEqualTo("stream threads 0.60, JIT compilers 0.00, GC 0.00, other 0.00 cores;"
                + " the stream threads waited for a core 0.21 of the time");
        // a snapshot without schedstat says nothing of waiting
        assertThat(ThreadCpu.describe(new ThreadCpu.Snapshot(0, Map.of(ThreadCpu.STREAM, 1.0)), b))
                .isEqualTo("stream threads 0.60, JIT compilers 0.00, GC 0.00, other 0.00 cores");
    }

    @Test
    void aLiveThreadsCpuIsReadFromProc() throws Exception {
        final CountDownLatch spun = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Thread t = new Thread(() -> {
            // 50 ms of its own CPU: five of the kernel's 10 ms ticks
            final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            while (mx.getCurrentThreadCpuTime() < 50_000_000L) {
                spins++;
            }
            spun.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "goodput-cpu-test-thread");
        t.start();
        try {
            spun.await();
            final ThreadCpu.Snapshot s = ThreadCpu.take(ProcessHandle.current().pid(), "goodput-cpu-test");
            if (!Files.isDirectory(Path.of("/proc/self/task"))) {
                assertThat(s).isNull();
                return;
            }
            assertThat(s).isNotNull();
            assertThat(s.cpuSeconds().get(ThreadCpu.STREAM)).isGreaterThanOrEqualTo(0.03);
            assertThat(s.cpuSeconds()).containsKey(ThreadCpu.JIT);
            if (Files.exists(Path.of("/proc/thread-self/schedstat"))) {
                // every thread has a wait (zero or more) once the kernel keeps schedstat, the spinning one among them
                assertThat(s.waitSeconds()).containsKey(ThreadCpu.STREAM);
                final long[] self = ThreadCpu.self();
                assertThat(self).isNotNull();
                assertThat(self[0]).as("this thread's time on a core, ns").isPositive();
            }
        } finally {
            release.countDown();
            t.join();
        }
    }
}

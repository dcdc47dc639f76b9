package dev.goodput.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Each test class's wall and CPU seconds, appended to {@code target/test-cpu.csv}: the fork's own
 * CPU and that of the child processes it waited for (child JVMs, brokers, llama-server). On the
 * 2-core machines CI runs on, the integration tests keep both cores busy, so the suite's time is
 * their CPU, not their waiting (docs/operations.md); this says which class costs what. Registered
 * for every class of the module by ServiceLoader (junit-platform.properties turns detection on).
 * Linux only: elsewhere it writes nothing.
 */
public final class ClassCpu implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(ClassCpu.class);
    private static final Path STAT = Path.of("/proc/self/stat");
    /** Linux's USER_HZ: the unit of /proc's CPU times, 100 on every kernel CI runs. */
    private static final double TICKS_PER_S = 100.0;

    @Override
    public void beforeAll(ExtensionContext context) {
        final long ticks = ticks();
        if (ticks >= 0) {
            context.getStore(NS).put("start", new long[] {System.nanoTime(), ticks});
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        final long[] start = context.getStore(NS).remove("start", long[].class);
        final long ticks = ticks();
        if (start == null || ticks < 0) {
            return;
        }
        final String row = String.format(Locale.ROOT, "%s,%.1f,%.1f%n", context.getRequiredTestClass().getName(),
                (System.nanoTime() - start[0]) / 1e9, (ticks - start[1]) / TICKS_PER_S);
        Files.writeString(Path.of("target", "test-cpu.csv"), row, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** utime + stime + cutime + cstime of this process, in clock ticks; -1 where there is no /proc. */
    static long ticks() {
        try {
            final String stat = Files.readString(STAT);
            // fields after the command's closing parenthesis: state is field 3, utime field 14
            final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}

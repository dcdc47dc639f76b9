package dev.goodput.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

/** The mechanism, on threads of the test's own; ProxyIT checks it on the proxy's real threads. */
class ObserverNiceTest {

    @Test
    void onlyTheNamedThreadsGetTheNiceValue() throws Exception {
        final CountDownLatch done = new CountDownLatch(1);
        // a thread gives the kernel its name once it runs, after start() has returned: wait for both to run
        final CountDownLatch running = new CountDownLatch(2);
        final Thread lowered = new Thread(() -> {
            running.countDown();
            await(done);
        }, "goodput-test-nice-a");
        final Thread other = new Thread(() -> {
            running.countDown();
            await(done);
        }, "goodput-test-keep");
        lowered.start();
        other.start();
        running.await();
        // threads start at their creator's nice, which a loaded CI may have raised: lowered from there
        final int own = niceOf(Path.of("/proc/thread-self/stat"));
        final int target = Math.min(19, own + 5);
        try {
            assertThat(ObserverNice.apply(target, List.of("goodput-test-ni"))).isEqualTo("nice " + target + " on 1 observing threads");
            assertThat(nice("goodput-test-ni")).isEqualTo(target);
            assertThat(nice("goodput-test-ke")).isEqualTo(own);
        } finally {
            done.countDown();
        }
        assertThat(ObserverNice.apply(target, List.of("no-such-thread"))).startsWith("not lowered");
    }

    @Test
    void aNiceOutsideOneToNineteenIsRefused() {
        assertThatThrownBy(() -> ObserverNice.apply(0)).hasMessageContaining("1 to 19");
        assertThatThrownBy(() -> ObserverNice.apply(20)).hasMessageContaining("1 to 19");
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The nice value of this JVM's thread whose kernel name starts with {@code prefix}, from its stat line. */
    private static int nice(String prefix) throws Exception {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                if (Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).startsWith(prefix)) {
                    return niceOf(task.resolve("stat"));
                }
            }
        }
        throw new AssertionError("no thread " + prefix);
    }

    private static int niceOf(Path statFile) throws Exception {
        final String stat = Files.readString(statFile, StandardCharsets.UTF_8);
        // after the name: state is field 3; nice is field 19
        return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
    }
}

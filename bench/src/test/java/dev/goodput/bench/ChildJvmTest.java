package dev.goodput.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildJvmTest {

    /** The child: writes into the directory it is given, says it is ready, and waits for its input to close. */
    public static final class WritesThenWaits {
        public static void main(String[] args) throws IOException {
            Files.createDirectories(Path.of(args[0], "task-0"));
            Files.writeString(Path.of(args[0], "task-0", "checkpoint"), "written by the child", StandardCharsets.UTF_8);
            System.out.println("ready=" + ProcessHandle.current().pid());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the parent closes our input
            }
        }
    }

    @Test
    void aChildsDirectoryIsRemovedWithWhatItWroteOnceTheChildHasExited(@TempDir Path tmp) throws IOException {
        final Path state = Files.createDirectory(tmp.resolve("state"));
        final ChildJvm child = ChildJvm.start(List.of("-Xmx64m"), WritesThenWaits.class.getName(), "ready=", state.toString())
                .removingOnClose(state);
        assertThat(child.value()).isEqualTo(Long.toString(child.pid()));
        assertThat(state.resolve("task-0").resolve("checkpoint")).exists();

        child.close();

        assertThat(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(state).doesNotExist();
        assertThat(tmp).exists();
    }

    /** A child that dies on its own once it has written and said it is ready. */
    public static final class WritesThenDies {
        public static void main(String[] args) throws IOException {
            Files.writeString(Path.of(args[0], "checkpoint"), "written by the child", StandardCharsets.UTF_8);
            System.out.println("ready=" + ProcessHandle.current().pid());
            System.exit(3);
        }
    }

    @Test
    void aChildThatDiedIsReportedAndItsDirectoryIsStillRemoved(@TempDir Path tmp) throws Exception {
        final Path state = Files.createDirectory(tmp.resolve("state"));
        final ChildJvm child = ChildJvm.start(List.of("-Xmx64m"), WritesThenDies.class.getName(), "ready=", state.toString())
                .removingOnClose(state);
        ProcessHandle.of(child.pid()).ifPresent(p -> p.onExit().join());

        assertThatThrownBy(child::close).isInstanceOf(IOException.class).hasMessageContaining("died before it was closed (exit 3)");
        assertThat(state).doesNotExist();
    }

    @Test
    void withoutADirectoryNothingElseIsRemoved(@TempDir Path tmp) throws IOException {
        final Path state = Files.createDirectory(tmp.resolve("state"));
        try (ChildJvm child = ChildJvm.start(List.of("-Xmx64m"), WritesThenWaits.class.getName(), "ready=", state.toString())) {
            assertThat(child.pid()).isPositive();
        }
        assertThat(state.resolve("task-0").resolve("checkpoint")).exists();
    }

    /** A child that, like the streams-app, does not watch its input: it says it is ready and sleeps. */
    public static final class Sleeps {
        public static void main(String[] args) throws InterruptedException {
            System.out.println("ready=" + ProcessHandle.current().pid());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** A benchmark JVM in small: starts a {@link Sleeps} child, says its pid, and waits to be killed. */
    public static final class StartsASleeper {
        public static void main(String[] args) throws IOException, InterruptedException {
            final ChildJvm child = ChildJvm.start(List.of("-Xmx64m"), Sleeps.class.getName(), "ready=");
            System.out.println("ready=" + child.pid());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    @Test
    void aChildEndsOnceTheJvmThatStartedItWasKilled() throws Exception {
        final ChildJvm parent = ChildJvm.start(List.of("-Xmx64m"), StartsASleeper.class.getName(), "ready=");
        final long childPid = Long.parseLong(parent.value());
        final Optional<ProcessHandle> child = ProcessHandle.of(childPid);
        assertThat(child).isPresent();
        try {
            // kill -9: the parent runs no hook and never closes its ChildJvm
            ProcessHandle.of(parent.pid()).orElseThrow().destroyForcibly();
            // how soon is the JDK's business (it polls a process that is not its child); ended is the point
            child.get().onExit().get(5, TimeUnit.MINUTES);
            assertThat(child.get().isAlive()).isFalse();
        } finally {
            child.ifPresent(ProcessHandle::destroyForcibly);
        }
        assertThatThrownBy(parent::close).isInstanceOf(IOException.class).hasMessageContaining("died before it was closed");
    }
}

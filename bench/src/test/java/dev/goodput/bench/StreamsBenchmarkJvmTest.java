package dev.goodput.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

/** bench-streams compares three readers: the raw consumer in its own JVM, and two apps in child JVMs. */
class StreamsBenchmarkJvmTest {

    /** The child: names its collectors, then waits for its input to close. */
    public static final class NamesItsCollectors {
        public static void main(String[] args) throws IOException {
            System.out.println("collectors=" + ChildJvm.collectors());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the parent closes our input
            }
        }
    }

    /**
     * The apps run under the collector of the JVM the raw consumer runs in. This fork runs under the
     * serial collector (the parent pom's test flags); a child given only a heap would pick G1 on these
     * machines, so the test fails if the flags stop reaching the children.
     */
    @Test
    void bothAppsRunUnderTheCollectorOfTheRawConsumersJvm() throws IOException {
        // without a collector of its own choosing (a run outside Maven), the child would pick the same
        // default as this JVM and the comparison would prove nothing
        assumeThat(ManagementFactory.getRuntimeMXBean().getInputArguments()).as("this JVM's collector flag")
                .anyMatch(f -> f.matches("-XX:\\+Use\\w+GC"));
        try (ChildJvm child = ChildJvm.start(ChildJvm.fixedHeap("64m"), NamesItsCollectors.class.getName(),
                "collectors=")) {
            assertThat(child.value()).isEqualTo(ChildJvm.collectors());
        }
        assertThat(ChildJvm.fixedHeap("64m")).startsWith("-Xms64m", "-Xmx64m");
    }
}

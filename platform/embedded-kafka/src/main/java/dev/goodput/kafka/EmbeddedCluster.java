package dev.goodput.kafka;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real multi-node KRaft cluster on loopback, each node (broker and controller) a JVM of its own
 * ({@link ClusterNodeMain}), so that one can be killed with SIGKILL and started again over its kept
 * log, as a broker of a user's cluster is. Replicated as a production cluster is set:
 * {@code default.replication.factor} 3 (or the node count), {@code min.insync.replicas} 2, the
 * offsets and transaction logs replicated the same. Ports are the kernel's, picked once and kept
 * across restarts.
 */
public final class EmbeddedCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCluster.class);
    /** An upper bound on a node's start, not a timing assertion: a node is ready within seconds. */
    private static final long START_LIMIT_S = 180;

    private final Path dir;
    private final String clusterId = Uuid.randomUuid().toString();
    private final int[] brokerPorts;
    private final int[] controllerPorts;
    private final String voters;
    private final List<String> overrides;
    private final Process[] nodes;

    private EmbeddedCluster(Path dir, int n, List<String> overrides) {
        this.dir = dir;
        final int[] ports = EmbeddedKafka.freePorts(2 * n);
        this.brokerPorts = IntStream.range(0, n).map(i -> ports[2 * i]).toArray();
        this.controllerPorts = IntStream.range(0, n).map(i -> ports[2 * i + 1]).toArray();
        this.voters = IntStream.range(0, n).mapToObj(i -> (i + 1) + "@127.0.0.1:" + controllerPorts[i])
                .collect(Collectors.joining(","));
        this.overrides = overrides;
        this.nodes = new Process[n];
    }

    /** Starts {@code n} nodes in a fresh temporary folder that {@link #close()} removes, and waits for all. */
    public static EmbeddedCluster start(int n) {
        final int rf = Math.min(3, n);
        final int isr = Math.min(2, rf);
        final List<String> settings = List.of("default.replication.factor=" + rf, "min.insync.replicas=" + isr,
                "offsets.topic.replication.factor=" + rf, "transaction.state.log.replication.factor=" + rf,
                "transaction.state.log.min.isr=" + isr, "share.coordinator.state.topic.replication.factor=" + rf,
                "share.coordinator.state.topic.min.isr=" + isr);
        try {
            final EmbeddedCluster c = new EmbeddedCluster(Files.createTempDirectory("goodput-cluster-"), n, settings);
            final List<CompletableFuture<Void>> ready = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                ready.add(c.launch(i));
            }
            c.await(ready);
            LOG.info("Kafka cluster of {} nodes ready at {}", n, c.bootstrapServers());
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary folder for the cluster", e);
        }
    }

    /** Every node's PLAINTEXT listener, comma-separated. */
    public String bootstrapServers() {
        return IntStream.range(0, nodes.length).mapToObj(i -> "127.0.0.1:" + brokerPorts[i]).collect(Collectors.joining(","));
    }

    /** The nodes, 1 to n. */
    public int size() {
        return nodes.length;
    }

    /** An admin client of the cluster (the caller closes it). */
    public Admin admin() {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Admin.create(p);
    }

    /** SIGKILLs node {@code id}: no clean shutdown, its log left as a crash leaves it. */
    public void kill(int id) throws InterruptedException {
        final Process p = nodes[id - 1];
        p.destroyForcibly();
        p.waitFor(60, TimeUnit.SECONDS);
    }

    /** Starts node {@code id} again over its kept log, and waits until it answers. */
    public void restart(int id) {
        await(List.of(launch(id)));
    }

    /**
     * This JVM's JIT flags (-XX:TieredStopAtLevel, the tests' C1 only), for the nodes: a node lives
     * for a test's minute or two, in which C2's compiling cost a node more CPU than it saved, and on
     * the 2-core machines the suite runs on its CPU is the suite's time (docs/operations.md).
     */
    private static List<String> jitFlags() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-XX:TieredStopAtLevel=")).toList();
    }

    private CompletableFuture<Void> launch(int id) {
        final List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:+UseSerialGC"));
        cmd.addAll(jitFlags());
        cmd.addAll(List.of("-Djava.io.tmpdir=" + dir, "-cp", System.getProperty("java.class.path"), ClusterNodeMain.class.getName(),
                dir.resolve("node-" + id).toString(), clusterId, Integer.toString(id),
                Integer.toString(brokerPorts[id - 1]), Integer.toString(controllerPorts[id - 1]), voters));
        cmd.addAll(overrides);
        final Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.PIPE).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a cluster node", e);
        }
        nodes[id - 1] = p;
        final CompletableFuture<Void> ready = new CompletableFuture<>();
        final Path log = dir.resolve("node-" + id + ".log");
        final Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    Files.writeString(log, line + "\n", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                            java.nio.file.StandardOpenOption.APPEND);
                    if (line.startsWith(ClusterNodeMain.READY)) {
                        ready.complete(null);
                    }
                }
            } catch (IOException e) {
                ready.completeExceptionally(e);
            }
            ready.completeExceptionally(new IllegalStateException("cluster node " + id + " exited before it was ready; its log: " + log));
        }, "goodput-cluster-node-" + id);
        reader.setDaemon(true);
        reader.start();
        return ready;
    }

    private void await(List<CompletableFuture<Void>> ready) {
        try {
            CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).get(START_LIMIT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            close();
            throw new IllegalStateException("the Kafka cluster did not start: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        // every node told at once (a node stops cleanly when its standard input closes): stopped one by one,
        // the last would wait for a quorum that has gone
        for (Process p : nodes) {
            if (p != null && p.isAlive()) {
                try {
                    p.getOutputStream().close();
                } catch (IOException e) {
                    p.destroyForcibly();
                }
            }
        }
        for (Process p : nodes) {
            if (p != null) {
                try {
                    if (!p.waitFor(30, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                        p.waitFor(30, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    p.destroyForcibly();
                }
            }
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            LOG.warn("could not remove {}: {}", dir, e.getMessage());
        }
    }
}

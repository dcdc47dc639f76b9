package dev.goodput.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process), started
 * inside this JVM from the Maven Central artifacts. No Docker, no ZooKeeper.
 *
 * <p>Ports are chosen free on loopback at first start and kept across {@link #restart()}, so
 * clients configured with {@link #bootstrapServers()} reconnect to the restarted broker. A
 * temporary broker deletes its data folder on {@link #close()}; a persistent one (the local run)
 * keeps it, and a second start over the same folder skips formatting and reopens the old log.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final String META_PROPERTIES = "meta.properties";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final Path dataDir;
    private final boolean deleteOnClose;
    private final Map<String, String> overrides;
    private final int brokerPort;
    private final int controllerPort;
    /** A SASL_PLAINTEXT (PLAIN) listener's port, 0 for none. */
    private final int saslPort;
    private final Map<String, String> saslUsers;
    private KafkaRaftServer server;
    private Duration lastStartTime = Duration.ZERO;
    /** The cluster id to format with: one shared by every node of a multi-node cluster, else a new one. */
    private String clusterId;

    private EmbeddedKafka(Path dataDir, boolean deleteOnClose, Map<String, String> overrides,
                          int brokerPort, int controllerPort) {
        this(dataDir, deleteOnClose, overrides, brokerPort, controllerPort, 0, Map.of());
    }

    private EmbeddedKafka(Path dataDir, boolean deleteOnClose, Map<String, String> overrides,
                          int brokerPort, int controllerPort, int saslPort, Map<String, String> saslUsers) {
        this.dataDir = dataDir;
        this.deleteOnClose = deleteOnClose;
        this.overrides = Map.copyOf(overrides);
        this.brokerPort = brokerPort;
        this.controllerPort = controllerPort;
        this.saslPort = saslPort;
        this.saslUsers = Map.copyOf(saslUsers);
    }

    /**
     * Starts a temporary broker with a second, SASL_PLAINTEXT listener (mechanism PLAIN) that admits
     * these users. A client given {@link #saslBootstrapServers()} is told only of that listener, so a
     * client without the credentials cannot fall back to the plaintext one.
     */
    public static EmbeddedKafka startTemporaryWithSasl(Map<String, String> users) {
        try {
            final Path dir = Files.createTempDirectory("goodput-kafka-");
            final int[] ports = freePorts(3);
            final EmbeddedKafka kafka = new EmbeddedKafka(dir, true, Map.of(), ports[0], ports[1], ports[2], users);
            kafka.start();
            return kafka;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary folder for the broker", e);
        }
    }

    /** {@code host:port} of the SASL_PLAINTEXT listener. */
    public String saslBootstrapServers() {
        if (saslPort == 0) {
            throw new IllegalStateException("this broker has no SASL listener");
        }
        return "127.0.0.1:" + saslPort;
    }

    /** Client properties that reach the SASL listener as {@code user}. */
    public Properties saslClientProperties(String user, String password) {
        final Properties p = new Properties();
        p.put("bootstrap.servers", saslBootstrapServers());
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "PLAIN");
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                + user + "\" password=\"" + password + "\";");
        return p;
    }

    /** Starts a broker in a fresh temporary folder that {@link #close()} removes. */
    public static EmbeddedKafka startTemporary() {
        return startTemporary(Map.of());
    }

    /** Starts a broker in a fresh temporary folder, with extra broker properties. */
    public static EmbeddedKafka startTemporary(Map<String, String> overrides) {
        try {
            final Path dir = Files.createTempDirectory("goodput-kafka-");
            final int[] ports = freePorts(2);
            final EmbeddedKafka kafka = new EmbeddedKafka(dir, true, overrides, ports[0], ports[1]);
            kafka.start();
            return kafka;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary folder for the broker", e);
        }
    }

    /**
     * Starts a broker whose data lives in {@code dataDir} and survives {@link #close()}.
     *
     * @param brokerPort the client port, 0 for any free port
     */
    public static EmbeddedKafka startPersistent(Path dataDir, int brokerPort, Map<String, String> overrides) {
        return startPersistent(dataDir, brokerPort, 0, overrides);
    }

    /**
     * The same with a fixed controller port too (a broker run as its own process, whose addresses
     * clients and drills rely on).
     *
     * @param controllerPort 0 for any free port
     */
    public static EmbeddedKafka startPersistent(Path dataDir, int brokerPort, int controllerPort, Map<String, String> overrides) {
        if (controllerPort != 0) {
            try {
                Files.createDirectories(dataDir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the broker data folder " + dataDir, e);
            }
            final EmbeddedKafka kafka = new EmbeddedKafka(dataDir, false, overrides,
                    brokerPort == 0 ? freePort() : brokerPort, controllerPort);
            kafka.start();
            return kafka;
        }
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the broker data folder " + dataDir, e);
        }
        final int[] ports = freePorts(2);
        final int broker = brokerPort == 0 ? ports[0] : brokerPort;
        final EmbeddedKafka kafka = new EmbeddedKafka(dataDir, false, overrides, broker,
                ports[0] != broker ? ports[0] : ports[1]);
        kafka.start();
        return kafka;
    }

    /**
     * Starts one node (broker and controller) of a multi-node KRaft cluster, its data kept in
     * {@code dataDir} across restarts: every node is formatted with the same {@code clusterId} and
     * names every controller in {@code voters} ({@code 1@127.0.0.1:P1,2@...}). A node waits for a
     * quorum of controllers, so the nodes of a cluster start at once (see {@link EmbeddedCluster}).
     */
    public static EmbeddedKafka startClusterNode(Path dataDir, String clusterId, int nodeId, int brokerPort, int controllerPort,
                                                 String voters, Map<String, String> overrides) {
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the broker data folder " + dataDir, e);
        }
        final Map<String, String> all = new java.util.HashMap<>(overrides);
        all.put("node.id", Integer.toString(nodeId));
        all.put("controller.quorum.voters", voters);
        final EmbeddedKafka kafka = new EmbeddedKafka(dataDir, false, all, brokerPort, controllerPort);
        kafka.clusterId = clusterId;
        kafka.start();
        return kafka;
    }

    /** {@code host:port} of the PLAINTEXT listener. */
    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** The KRaft controller listener's port. */
    public int controllerPort() {
        return controllerPort;
    }

    /** The folder that holds the broker's log. */
    public Path dataDir() {
        return dataDir;
    }

    /** How long the last start took, from launch to a metadata answer. */
    public Duration lastStartTime() {
        return lastStartTime;
    }

    /** An admin client for this broker; the caller closes it. */
    public Admin admin() {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Admin.create(p);
    }

    /** Stops the broker (as a crash-free shutdown) and starts it again on the same ports and log. */
    public synchronized void restart() {
        stopServer();
        start();
    }

    /** Stops the broker without removing its data; {@link #restart()} brings it back. */
    public synchronized void stop() {
        stopServer();
    }

    private synchronized void start() {
        final long t0 = System.nanoTime();
        final Path logDir = dataDir.resolve("log");
        final Properties props = brokerProperties(logDir);
        if (!Files.exists(logDir.resolve(META_PROPERTIES))) {
            format(props);
        }
        server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server.startup();
        awaitReady();
        lastStartTime = Duration.ofNanos(System.nanoTime() - t0);
        LOG.info("Kafka broker ready at {} in {} ms (data {})", bootstrapServers(),
                lastStartTime.toMillis(), dataDir);
    }

    private Properties brokerProperties(Path logDir) {
        final Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        // A static voter set: the controller's address comes from this configuration at every
        // start, so a kept data folder can be reopened even when the controller port differs.
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        if (saslPort != 0) {
            p.put("listeners", p.getProperty("listeners") + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort);
            p.put("advertised.listeners", p.getProperty("advertised.listeners") + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort);
            p.put("listener.security.protocol.map", p.getProperty("listener.security.protocol.map")
                    + ",SASL_PLAINTEXT:SASL_PLAINTEXT");
            p.put("sasl.enabled.mechanisms", "PLAIN");
            final StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
            saslUsers.forEach((u, pw) -> jaas.append(" user_").append(u).append("=\"").append(pw).append('"'));
            p.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", jaas.append(';').toString());
        }
        p.put("log.dirs", logDir.toString());
        p.put("num.partitions", "1");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        // Topics are created explicitly with their partition counts and cleanup policies.
        p.put("auto.create.topics.enable", "false");
        p.put("log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
        p.putAll(overrides);
        return p;
    }

    private void format(Properties props) {
        final Path config = dataDir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            props.store(w, "goodput embedded broker");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config, e);
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int rc;
        try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            rc = StorageTool.execute(new String[] {
                "format", "-t", clusterId != null ? clusterId : Uuid.randomUuid().toString(), "-c", config.toString(),
                "--ignore-formatted"},
                ps);
        }
        if (rc != 0) {
            throw new IllegalStateException("formatting the broker log failed: " + out.toString(StandardCharsets.UTF_8));
        }
    }

    private void awaitReady() {
        final long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            try (Admin admin = admin()) {
                admin.describeCluster().nodes().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                return;
            } catch (Exception e) {
                last = new IllegalStateException("broker at " + bootstrapServers() + " did not answer", e);
                sleep(100);
            }
        }
        throw last != null ? last : new IllegalStateException("broker did not start in " + READY_TIMEOUT);
    }

    private void stopServer() {
        if (server != null) {
            server.shutdown();
            server.awaitShutdown();
            server = null;
        }
    }

    @Override
    public synchronized void close() {
        stopServer();
        if (deleteOnClose) {
            deleteRecursively(dataDir);
        }
    }

    /** Removes {@code dir} and what it holds; what cannot be removed is logged, not thrown. */
    public static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.warn("could not remove {}: {}", dir, e.getMessage());
        }
    }

    /** A port that was free on loopback a moment ago. */
    public static int freePort() {
        return freePorts(1)[0];
    }

    /**
     * {@code n} distinct free loopback ports. Each probe stays bound until all are found: probing one
     * port at a time can return the same port twice, and a broker given one port for both of its
     * listeners does not start (seen here: "two listeners on the same port").
     */
    public static int[] freePorts(int n) {
        final ServerSocket[] sockets = new ServerSocket[n];
        try {
            final int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets[i].setReuseAddress(true);
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on loopback", e);
        } finally {
            for (ServerSocket s : sockets) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // a probe socket that cannot close leaves its port taken, nothing else
                    }
                }
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the broker", e);
        }
    }
}

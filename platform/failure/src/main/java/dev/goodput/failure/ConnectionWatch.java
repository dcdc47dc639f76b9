package dev.goodput.failure;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import dev.goodput.config.ClientConfig;
import dev.goodput.registry.RegistryException;
import dev.goodput.registry.SchemaRegistryClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says when a long-running command loses the broker or the registry and when it has them back: one
 * WARN line at the loss, one INFO line at the recovery with how long it lasted. Kafka's clients ride
 * out an outage by themselves, but silently at the log levels an operator's terminal shows, so an
 * outage and a stalled pipeline looked the same.
 */
public final class ConnectionWatch implements AutoCloseable {

    static final Duration PERIOD = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionWatch.class);

    private final String who;
    private final Admin admin;
    private final String bootstrap;
    private final SchemaRegistryClient registry;
    private final Thread thread;
    private volatile boolean running = true;
    private final Outage kafka = new Outage();
    private final Outage schemaRegistry = new Outage();

    /**
     * Starts watching.
     *
     * @param who      the part that is watching, named in each line ("streams-app", "sink", ...)
     * @param registry the registry to watch as well, or null
     */
    public ConnectionWatch(String who, Properties client, SchemaRegistryClient registry) {
        this.who = who;
        final Properties p = ClientConfig.forAdmin(client);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
        this.admin = Admin.create(p);
        this.bootstrap = p.getProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
        this.registry = registry;
        this.thread = new Thread(this::run, "goodput-connection-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (running) {
            kafka.observe(checkKafka(), "Kafka at " + bootstrap);
            if (registry != null) {
                schemaRegistry.observe(checkRegistry(), "the schema registry at " + registry.baseUrl());
            }
            try {
                Thread.sleep(PERIOD.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Null when the broker answered, else why not. */
    private String checkKafka() {
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(5_000)).nodes().get(6, TimeUnit.SECONDS);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (java.util.concurrent.TimeoutException e) {
            return "no answer within 6 s";
        } catch (Exception e) {
            final Throwable c = e.getCause() != null ? e.getCause() : e;
            return c instanceof org.apache.kafka.common.errors.TimeoutException ? "no answer within 5 s"
                    : c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
        }
    }

    private String checkRegistry() {
        try {
            registry.globalCompatibility();
            return null;
        } catch (RegistryException e) {
            return e.getMessage();
        }
    }

    /** One outage's state: a line when it begins, one when it ends. */
    private final class Outage {
        private long since = -1;

        void observe(String problem, String what) {
            if (!running) {
                return; // closing: a check cut short is not an outage
            }
            if (problem != null && since < 0) {
                since = System.nanoTime();
                LOG.warn("{}: lost {} ({}); retrying", who, what, problem);
            } else if (problem == null && since >= 0) {
                LOG.info("{}: {} is back after {} s", who, what, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - since));
                since = -1;
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        admin.close(Duration.ofSeconds(2));
    }
}

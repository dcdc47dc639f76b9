package dev.goodput.config;

import java.util.Properties;
import java.util.concurrent.TimeUnit;

import dev.goodput.registry.RegistryException;
import dev.goodput.registry.SchemaRegistryClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** Start-up checks that turn an unreachable broker or registry into one line naming the address. */
public final class Preflight {

    private Preflight() {
    }

    /** Fails with a one-line message when no broker answers within {@code timeoutMs}. */
    public static void kafka(Properties clientProps, long timeoutMs) {
        final Properties p = new Properties();
        p.putAll(clientProps);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        p.keySet().removeIf(k -> !AdminClientConfig.configNames().contains(String.valueOf(k)));
        try (Admin admin = Admin.create(p)) {
            admin.describeCluster().nodes().get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new Unreachable("Kafka at " + p.getProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)
                    + " did not answer within " + timeoutMs + " ms (check --bootstrap-server)");
        }
    }

    /** Fails with a one-line message when the registry does not answer. */
    public static void registry(SchemaRegistryClient client) {
        try {
            client.globalCompatibility();
        } catch (RegistryException e) {
            throw new Unreachable("the schema registry at " + client.baseUrl() + " did not answer: "
                    + e.getMessage() + " (check --schema-registry)");
        }
    }

    /** An address that does not answer at start. */
    public static final class Unreachable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Unreachable(String message) {
            super(message);
        }
    }
}

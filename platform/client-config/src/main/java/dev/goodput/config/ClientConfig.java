package dev.goodput.config;

import java.io.IOException;
import java.io.Reader;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;


/**
 * Kafka client properties, merged in one place and one order: the user's {@code .properties} file
 * (as {@code --producer.config} / {@code --consumer.config} / {@code --streams.config} in Kafka's own
 * tools), then environment overrides ({@code GOODPUT_KAFKA_LINGER_MS=20} becomes {@code linger.ms=20}),
 * then command-line flags such as {@code --bootstrap-server}, then defaults for whatever is still unset.
 */
public final class ClientConfig {

    public static final String ENV_PREFIX = "GOODPUT_KAFKA_";

    private ClientConfig() {
    }

    /**
     * @param file      a properties file, or null
     * @param env       the environment (System.getenv() in the apps)
     * @param flags     properties given by command-line flags
     * @param defaults  applied only where nothing above set the key
     */
    public static Properties merge(Path file, Map<String, String> env, Map<String, String> flags,
                                   Map<String, String> defaults) {
        final Properties p = file == null ? new Properties() : load(file, "client properties");
        env.forEach((k, v) -> {
            if (k.startsWith(ENV_PREFIX) && k.length() > ENV_PREFIX.length()) {
                p.setProperty(k.substring(ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.'), v);
            }
        });
        flags.forEach((k, v) -> {
            if (v != null) {
                p.setProperty(k, v);
            }
        });
        defaults.forEach(p::putIfAbsent);
        return p;
    }

    /** A .properties file, or a {@link ConfigException} naming it as the given kind of file. */
    static Properties load(Path file, String kind) {
        final Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            throw new ConfigException(kind, file.toString(), List.of("file not found"));
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException(kind, file.toString(), List.of("cannot read: " + e.getMessage()));
        }
        return p;
    }

    /**
     * What an admin client of a command gets from the merged client properties: every setting an
     * admin client knows (bootstrap, security.protocol, sasl.*, ssl.*, timeouts), so a secured cluster
     * that the producer reaches is reached by the topic creation too. Settings for other clients stay out.
     */
    public static Properties forAdmin(Properties client) {
        return only(client, AdminClientConfig.configNames());
    }

    /** The same for a consumer of a command's own (a reader of result topics, a replay's catch-up check). */
    public static Properties forConsumer(Properties client) {
        return only(client, ConsumerConfig.configNames());
    }

    /** The same for a producer of a command's own (prices, a registry's schema log). */
    public static Properties forProducer(Properties client) {
        return only(client, ProducerConfig.configNames());
    }

    private static Properties only(Properties client, Set<String> names) {
        final Properties p = new Properties();
        client.forEach((k, v) -> {
            if (names.contains(String.valueOf(k))) {
                p.put(k, v);
            }
        });
        return p;
    }

    /**
     * A static group member id (KIP-345) for this instance: the same for every start on this host
     * and state folder, different for two instances side by side. A killed instance started again
     * takes its old place in the group at once; a new member would wait out the dead one's session
     * (45 s by default) before any task moved. The price: an instance that never comes back keeps
     * its tasks until that session times out.
     */
    public static String staticMemberId(String applicationId, Path stateDir) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "localhost";
        }
        // Kafka takes only ASCII letters, digits, '.', '_' and '-' in an instance id
        return (applicationId + "-" + host + "-" + Integer.toHexString(stateDir.toAbsolutePath().normalize().toString().hashCode()))
                .replaceAll("[^A-Za-z0-9._-]", "_");
    }
}

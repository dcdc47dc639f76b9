package dev.goodput.registry;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.goodput.config.ConfigException;
import dev.goodput.config.Connection;
import dev.goodput.config.Preflight;

/**
 * A registry client for a command's {@code --schema-registry}, checked to answer at start. Kept beside
 * the client rather than in {@link Connection} so the configuration module does not depend on the
 * registry: the registry reads client configuration, not the other way round.
 */
public final class RegistryConnection {
    private RegistryConnection() {
    }

    /**
     * A client for {@code connection}'s --schema-registry, authenticated as {@code clientProps} (the
     * command's merged client properties, from {@link Connection#kafka}) say under Confluent's names
     * (basic.auth.credentials.source, ...), so one properties file serves Kafka and the registry.
     */
    public static SchemaRegistryClient open(Connection connection, Properties clientProps) {
        final Map<String, String> props = new HashMap<>();
        clientProps.stringPropertyNames().forEach(k -> props.put(k, clientProps.getProperty(k)));
        final RegistryAuth auth;
        try {
            auth = RegistryAuth.from(props, connection.registryUrl());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("client properties", "(the properties file and GOODPUT_KAFKA_* variables)",
                    List.of(e.getMessage()));
        }
        final SchemaRegistryClient client = new SchemaRegistryClient(connection.registryUrl(), auth);
        check(client);
        return client;
    }

    /** A client without credentials for {@code url}, checked to answer. */
    public static SchemaRegistryClient open(String url) {
        final SchemaRegistryClient client = new SchemaRegistryClient(url);
        check(client);
        return client;
    }

    /** Fails with a one-line message when the registry does not answer or refuses the credentials. */
    public static void check(SchemaRegistryClient client) {
        try {
            client.globalCompatibility();
        } catch (RegistryException e) {
            if (e.httpStatus() == 401 || e.httpStatus() == 403) {
                throw new Preflight.Unreachable("the schema registry at " + client.baseUrl() + " refused the credentials ("
                        + client.authKind() + "; HTTP " + e.httpStatus() + "): set basic.auth.credentials.source=USER_INFO"
                        + " and basic.auth.user.info=KEY:SECRET, or bearer.auth.credentials.source=STATIC_TOKEN and"
                        + " bearer.auth.token, in the --command-config file");
            }
            throw new Preflight.Unreachable("the schema registry at " + client.baseUrl() + " did not answer: "
                    + e.getMessage() + " (check --schema-registry)");
        }
    }
}

package dev.goodput.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;

import dev.goodput.config.ConfigException;
import dev.goodput.config.Connection;
import dev.goodput.config.Preflight;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command's registry client takes its credentials from the same client properties as its Kafka clients. */
class RegistryConnectionTest {

    @CommandLine.Command(name = "t")
    static final class Cmd {
        @CommandLine.Mixin
        Connection connection;
    }

    private static Connection connection(String registryUrl) {
        final Cmd cmd = new Cmd();
        new CommandLine(cmd).parseArgs("--schema-registry", registryUrl);
        return cmd.connection;
    }

    @Test
    void theClientPropertiesCarryTheRegistryCredentials() {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)
                .requireAuth(RegistryAuth.basic("sr-key:sr-Secret-42"))) {
            final Properties props = new Properties();
            props.setProperty("bootstrap.servers", "127.0.0.1:9092");
            props.setProperty("basic.auth.credentials.source", "USER_INFO");
            props.setProperty("basic.auth.user.info", "sr-key:sr-Secret-42");
            assertThat(RegistryConnection.open(connection(registry.url()), props).authKind()).isEqualTo("basic");

            final Properties without = new Properties();
            without.setProperty("bootstrap.servers", "127.0.0.1:9092");
            assertThatThrownBy(() -> RegistryConnection.open(connection(registry.url()), without))
                    .isInstanceOf(Preflight.Unreachable.class).hasMessageContaining("refused the credentials (none");

            props.remove("basic.auth.user.info");
            assertThatThrownBy(() -> RegistryConnection.open(connection(registry.url()), props))
                    .isInstanceOf(ConfigException.class).hasMessageContaining("basic.auth.user.info as KEY:SECRET");
        }
    }
}

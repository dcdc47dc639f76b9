package dev.goodput.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/**
 * A registry that requires credentials (the in-process one, answering 401 as Confluent's does) is
 * reached with Confluent's property names, and refuses a client without them with a message that
 * names the properties and never the secret.
 */
class RegistryAuthTest {

    private static final String SECRET = "s3cr3t-Registry-Pass";
    private static final Schema SCHEMA = new Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}");

    @Test
    void basicUserInfoAndUrlCredentialsAreAcceptedAndMissingOnesRefused() {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)
                .requireAuth(RegistryAuth.basic("key:" + SECRET))) {
            final SchemaRegistryClient userInfo = new SchemaRegistryClient(registry.url(), RegistryAuth.from(
                    Map.of("basic.auth.credentials.source", "USER_INFO", "basic.auth.user.info", "key:" + SECRET),
                    registry.url()));
            assertThat(userInfo.register("t-value", SCHEMA)).isPositive();

            final String withCredentials = registry.url().replace("http://", "http://key:" + SECRET + "@");
            final SchemaRegistryClient url = new SchemaRegistryClient(withCredentials, RegistryAuth.from(
                    Map.of("schema.registry.basic.auth.credentials.source", "URL"), withCredentials));
            assertThat(url.subjects()).containsExactly("t-value");
            assertThat(url.baseUrl()).isEqualTo(registry.url()).doesNotContain(SECRET);

            final SchemaRegistryClient none = new SchemaRegistryClient(registry.url());
            assertThatThrownBy(() -> RegistryConnection.check(none))
                    .hasMessageContaining("refused the credentials (none; HTTP 401)")
                    .hasMessageContaining("basic.auth.credentials.source=USER_INFO");
            final SchemaRegistryClient wrong = new SchemaRegistryClient(registry.url(), RegistryAuth.basic("key:wrong"));
            assertThatThrownBy(() -> RegistryConnection.check(wrong)).hasMessageContaining("(basic; HTTP 401)")
                    .hasMessageNotContaining("wrong");
        }
    }

    @Test
    void aStaticBearerTokenIsSentAsConfluentsBearerAuth() {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)
                .requireAuth(RegistryAuth.bearer(SECRET))) {
            final SchemaRegistryClient bearer = new SchemaRegistryClient(registry.url(), RegistryAuth.from(
                    Map.of("bearer.auth.credentials.source", "STATIC_TOKEN", "bearer.auth.token", SECRET), registry.url()));
            RegistryConnection.check(bearer);
            assertThat(bearer.register("t-value", SCHEMA)).isPositive();
            assertThat(bearer.authKind()).isEqualTo("bearer");
            assertThat(RegistryAuth.bearer(SECRET).toString()).doesNotContain(SECRET);
        }
    }

    @Test
    void aSourceWithoutItsValueNamesTheMissingProperty() {
        assertThatThrownBy(() -> RegistryAuth.from(Map.of("basic.auth.credentials.source", "USER_INFO"), "http://h:8081"))
                .hasMessageContaining("basic.auth.user.info as KEY:SECRET");
        assertThatThrownBy(() -> RegistryAuth.from(Map.of("bearer.auth.credentials.source", "STATIC_TOKEN"), "http://h:8081"))
                .hasMessageContaining("bearer.auth.token");
        assertThatThrownBy(() -> RegistryAuth.from(Map.of("basic.auth.credentials.source", "SASL_INHERIT"), "http://h:8081"))
                .hasMessageContaining("use USER_INFO or URL");
        assertThat(RegistryAuth.from(Map.of(), "http://h:8081")).isSameAs(RegistryAuth.NONE);
    }
}

package dev.goodput.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.goodput.kafka.EmbeddedKafka;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class SchemaRegistryClientTest {
    /** The project's token event as its .avsc files say (the generated class sits in a module above this one). */
    private static final Schema TOKEN_EVENT = tokenEvent();

    private static Schema tokenEvent() {
        final Schema.Parser parser = new Schema.Parser();
        try {
            parser.parse(Path.of("../../schemas/src/main/avro/RequestEvent.avsc").toFile());
            return parser.parse(Path.of("../../schemas/src/main/avro/TokenEvent.avsc").toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void registersLooksUpAndCachesBothWays() {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            final int id = client.register("llm.tokens-value", TOKEN_EVENT);
            assertThat(client.getById(id)).isEqualTo(TOKEN_EVENT);
            assertThat(client.versions("llm.tokens-value")).containsExactly(1);
            assertThat(client.lookup("llm.tokens-value", TOKEN_EVENT).id()).isEqualTo(id);
            assertThat(client.globalCompatibility()).isEqualTo("BACKWARD");
            registry.close();
            // answered from the caches, with the registry gone
            assertThat(client.register("llm.tokens-value", TOKEN_EVENT)).isEqualTo(id);
            assertThat(client.getById(id)).isEqualTo(TOKEN_EVENT);
        }
    }

    @Test
    void mapsRegistryErrorsToTypedExceptions() {
        try (InProcessSchemaRegistry registry = InProcessSchemaRegistry.inMemory(0)) {
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url());
            assertThatThrownBy(() -> client.getById(42)).isInstanceOf(RegistryException.NotFound.class)
                    .extracting(e -> ((RegistryException) e).errorCode()).isEqualTo(40403);
            assertThatThrownBy(() -> client.versions("none")).isInstanceOf(RegistryException.NotFound.class)
                    .extracting(e -> ((RegistryException) e).errorCode()).isEqualTo(40401);
            final Schema v1 = new Schema.Parser().parse(
                    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}");
            final Schema breaking = new Schema.Parser().parse(
                    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"b\",\"type\":\"int\"}]}");
            client.register("s", v1);
            assertThatThrownBy(() -> client.register("s", breaking)).isInstanceOf(RegistryException.Incompatible.class)
                    .hasMessageContaining("incompatible");
        }
    }

    @Test
    void retriesServerErrorsButNotClientErrors() throws IOException {
        final AtomicInteger hits = new AtomicInteger();
        final HttpServer flaky = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        flaky.createContext("/schemas/ids/1", ex -> {
            final int n = hits.incrementAndGet();
            final String body = n <= 2 ? "{\"error_code\":50001,\"message\":\"Error in the backend datastore\"}"
                    : "{\"schema\":\"\\\"string\\\"\"}";
            reply(ex, n <= 2 ? 500 : 200, body);
        });
        final AtomicInteger notFoundHits = new AtomicInteger();
        flaky.createContext("/schemas/ids/2", ex -> {
            notFoundHits.incrementAndGet();
            reply(ex, 404, "{\"error_code\":40403,\"message\":\"Schema 2 not found\"}");
        });
        flaky.start();
        try {
            final SchemaRegistryClient client = new SchemaRegistryClient(
                    "http://127.0.0.1:" + flaky.getAddress().getPort(), 3, Duration.ofMillis(1));
            assertThat(client.getById(1).getType()).isEqualTo(Schema.Type.STRING);
            assertThat(hits.get()).isEqualTo(3);
            assertThatThrownBy(() -> client.getById(2)).isInstanceOf(RegistryException.NotFound.class);
            assertThat(notFoundHits.get()).isEqualTo(1);
        } finally {
            flaky.stop(0);
        }
    }

    @Test
    void giveUpOnPersistentServerErrorsWithTheCode() throws IOException {
        final HttpServer down = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        down.createContext("/", ex -> reply(ex, 503, "{\"error_code\":50003,\"message\":\"Error while forwarding\"}"));
        down.start();
        try {
            final SchemaRegistryClient client = new SchemaRegistryClient(
                    "http://127.0.0.1:" + down.getAddress().getPort(), 2, Duration.ofMillis(1));
            assertThatThrownBy(() -> client.getById(1)).isInstanceOf(RegistryException.ServerError.class)
                    .extracting(e -> ((RegistryException) e).errorCode()).isEqualTo(50003);
        } finally {
            down.stop(0);
        }
    }

    @Test
    void unreachableRegistryNamesTheAddress() {
        final String url = "http://127.0.0.1:" + EmbeddedKafka.freePort();
        final SchemaRegistryClient client = new SchemaRegistryClient(url);
        assertThatThrownBy(() -> client.getById(1)).isInstanceOf(RegistryException.Unreachable.class)
                .hasMessageContaining(url).hasMessageContaining("unreachable");
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        final byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", SchemaRegistryClient.CONTENT_TYPE);
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }
}

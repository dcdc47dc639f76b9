package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The preflight as a user meets it, through the command line in a child JVM: a target that
 * refuses connections and one that answers 404 stop {@code produce} and {@code demo} with exit 1
 * and the server's answer, before anything else starts (no Kafka is running here at all).
 */
class PreflightIT {

    @Test
    void aRefusedConnectionStopsTheDemoWithExit1BeforeAnythingStarts(@TempDir Path dir) throws Exception {
        // a port bound by a socket that does not listen: connecting to it is refused, whatever else runs here
        try (Socket holder = new Socket()) {
            holder.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final Path data = dir.resolve("data");
            try (ChildCli demo = ChildCli.start("demo", "--data-dir", data.toString(), "--contract",
                    "../config/contract.yaml", "--matrix", "../config/scenarios.yaml", "--prices", "../config/prices.yaml",
                    "--target", "http://127.0.0.1:" + holder.getLocalPort() + "/v1")) {
                assertThat(demo.waitForExit()).isEqualTo(1);
                assertThat(demo.output()).contains("refused the connection: nothing listens there");
            }
            assertThat(Files.exists(data)).as("no broker was started").isFalse();
        }
    }

    @Test
    void a404StopsProduceWithExit1AndTheServersMessage() throws Exception {
        final List<String> seen = new CopyOnWriteArrayList<>();
        final HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", x -> {
            seen.add(x.getRequestMethod() + " " + x.getRequestURI() + " api-key=" + x.getRequestHeaders().getFirst("api-key"));
            x.getRequestBody().readAllBytes();
            final byte[] body = "{\"error\":{\"message\":\"Resource not found\"}}".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(404, body.length);
            try (OutputStream out = x.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        try (ChildCli produce = ChildCli.start("produce", "--contract", "../config/contract.yaml", "--target",
                "http://127.0.0.1:" + server.getAddress().getPort() + "/openai/deployments/d?api-version=2024-10-21",
                "--header", "api-key: k-123", "--bootstrap-server", "127.0.0.1:1", "--duration", "30")) {
            assertThat(produce.waitForExit()).isEqualTo(1);
            assertThat(produce.output()).contains("failed (http_404): HTTP 404: {\"error\":{\"message\":\"Resource not found\"}}")
                    .doesNotContain("k-123").doesNotContain("Kafka");
        } finally {
            server.stop(0);
        }
        // the query and the header reached the server on both calls
        assertThat(seen).containsExactly(
                "GET /openai/deployments/d/models?api-version=2024-10-21 api-key=k-123",
                "POST /openai/deployments/d/chat/completions?api-version=2024-10-21 api-key=k-123");
    }
}

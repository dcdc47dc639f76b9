package dev.goodput.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import com.sun.net.httpserver.HttpServer;
import dev.goodput.report.TopicSnapshot;
import dev.goodput.topics.Topic;
import dev.goodput.topics.Topics;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A demo against a target that refuses every request with a 401 whose body echoes the credential it
 * was sent, the API key given through the environment and a password in the --target URL: neither
 * secret is anywhere afterwards, not in the console, the data folder's files, any topic's records
 * (read decoded, since the segments are compressed) nor the report bundle.
 */
class SecretsIT {

    private static final String KEY = "sk-fakeGoodputKey0123456789";
    private static final String PASSWORD = "url-pass-8f3a91";

    @Test
    void noSecretLeavesTheProcess(@TempDir Path dir) throws Exception {
        final List<String> seen = new CopyOnWriteArrayList<>();
        final HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", x -> {
            final String auth = String.valueOf(x.getRequestHeaders().getFirst("Authorization"));
            if (x.getRequestMethod().equals("POST")) {
                seen.add(auth); // the version probe's GETs carry no key
            }
            x.getRequestBody().readAllBytes();
            final byte[] body = ("{\"error\":{\"message\":\"Incorrect API key provided: " + auth
                    + " (key " + auth.replace("Bearer ", "") + ")\",\"type\":\"invalid_request_error\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "application/json");
            x.sendResponseHeaders(401, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        final Path data = dir.resolve("data");
        final Path reports = dir.resolve("reports");
        final String out;
        final String preflightOut;
        final int preflightExit;
        final int runExit;
        try {
            final String url = "http://alice:" + PASSWORD + "@127.0.0.1:" + server.getAddress().getPort() + "/v1";
            // first as a user would run it: the preflight stops it with the server's (redacted) answer
            try (ChildCli demo = ChildCli.start(Map.of("GOODPUT_IT_KEY", KEY), "demo", "--fresh", "--data-dir",
                    dir.resolve("unused").toString(), "--contract", "../config/contract.yaml", "--matrix",
                    "../config/scenarios.yaml", "--prices", "../config/prices.yaml", "--target", url,
                    "--api-key-env", "GOODPUT_IT_KEY")) {
                preflightExit = demo.waitForExit();
                preflightOut = demo.output();
            }
            // then past the preflight: every request fails, so the run ends with exit 1 and its error classes
            final Map<String, String> env = new HashMap<>(ChildCli.SHORT_WINDOWS);
            env.put("GOODPUT_IT_KEY", KEY);
            try (ChildCli demo = ChildCli.start(env, "demo", "--fresh", "--data-dir", data.toString(),
                    "--contract", "../config/contract.yaml", "--matrix", "../config/scenarios.yaml", "--prices",
                    "../config/prices.yaml", "--report-dir", reports.toString(), "--target", url, "--api-key-env",
                    "GOODPUT_IT_KEY", "--scenario-seconds", "2", "--duration", "10s", "--skip-preflight")) {
                runExit = demo.waitForExit();
                out = demo.output();
            }
        } finally {
            server.stop(0);
        }
        // the key did reach the target, and the target did echo it
        assertThat(seen).isNotEmpty().allMatch(a -> a.equals("Bearer " + KEY));
        final List<String> secrets = List.of(KEY, PASSWORD, Base64.getEncoder().encodeToString(("alice:" + PASSWORD).getBytes(StandardCharsets.UTF_8)));

        assertThat(preflightExit).isEqualTo(1);
        assertThat(preflightOut).as("preflight console").doesNotContain(secrets)
                .contains("refused the credentials", "HTTP 401", "Incorrect API key provided: Bearer ***");
        assertThat(Files.exists(dir.resolve("unused"))).as("nothing started before the preflight").isFalse();
        assertThat(runExit).isEqualTo(1);
        assertThat(out).as("console").doesNotContain(secrets).contains("Report: ")
                .contains("FAILED: none of the run's", "http_401", "e.g. HTTP 401: {\"error\":{\"message\":\"Incorrect API key provided: Bearer ***");
        final List<String> leaks = new ArrayList<>();
        for (Path root : List.of(data, reports)) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    final String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                    secrets.stream().filter(text::contains).forEach(s -> leaks.add(f + " holds " + s));
                }
            }
        }
        int errorRecords = 0;
        try (LocalCluster cluster = LocalCluster.start(data, false, 0, 0, Topics.ALL)) {
            final Properties client = new Properties();
            client.put("bootstrap.servers", cluster.bootstrapServers());
            for (Topic<?> t : Topics.ALL) {
                for (byte[] v : TopicSnapshot.read(client, t.name(), new ByteArrayDeserializer())) {
                    final String text = new String(v == null ? new byte[0] : v, StandardCharsets.ISO_8859_1);
                    secrets.stream().filter(text::contains).forEach(s -> leaks.add(t.name() + " holds " + s));
                    if (t.name().equals(Topics.REQUESTS.name()) && text.contains("Incorrect API key provided: Bearer ***")) {
                        errorRecords++;
                    }
                }
            }
        }
        assertThat(leaks).isEmpty();
        assertThat(errorRecords).as("request events keep the redacted error body").isPositive();
        try (Stream<Path> bundle = Files.list(reports)) {
            final Path run = bundle.findFirst().orElseThrow();
            assertThat(Files.readString(run.resolve("manifest.json"))).contains("http://***@127.0.0.1");
        }
    }

    static String read(Path p) throws IOException {
        return Files.readString(p);
    }
}

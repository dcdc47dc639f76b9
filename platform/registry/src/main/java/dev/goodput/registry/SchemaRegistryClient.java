package dev.goodput.registry;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.goodput.config.Redact;
import org.apache.avro.Schema;

/**
 * A client for the subset of Confluent's Schema Registry REST API that Avro serdes need, written to
 * the public API (Confluent's own jars are not available to this project). Thread-safe.
 *
 * <p>Registrations are cached per subject and schema, lookups per id, both ways, so a serializer
 * talks to the registry once per (topic, schema) and a deserializer once per writer id. Server
 * errors (5xx) are retried with exponential backoff; client errors are not, since repeating them
 * cannot succeed.
 */
public final class SchemaRegistryClient {

    public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String baseUrl;
    private final HttpClient http;
    private final int maxRetries;
    private final Duration initialBackoff;
    private final Map<String, Map<Schema, Integer>> idsBySubject = new ConcurrentHashMap<>();
    private final Map<Integer, Schema> schemasById = new ConcurrentHashMap<>();
    private final RegistryAuth auth;

    public SchemaRegistryClient(String baseUrl) {
        this(baseUrl, 3, Duration.ofMillis(100));
    }

    public SchemaRegistryClient(String baseUrl, int maxRetries, Duration initialBackoff) {
        this(baseUrl, maxRetries, initialBackoff, RegistryAuth.from(Map.of(), baseUrl));
    }

    /** A client that authenticates every call; credentials in {@code baseUrl} leave it (they are in {@code auth}). */
    public SchemaRegistryClient(String baseUrl, RegistryAuth auth) {
        this(baseUrl, 3, Duration.ofMillis(100), auth);
    }

    private SchemaRegistryClient(String baseUrl, int maxRetries, Duration initialBackoff, RegistryAuth auth) {
        this.auth = auth;
        this.baseUrl = stripTrailingSlash(Redact.withoutUserInfo(baseUrl));
        this.maxRetries = maxRetries;
        this.initialBackoff = initialBackoff;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    public String baseUrl() {
        return baseUrl;
    }

    /** How this client authenticates: none, basic or bearer (never the credential). */
    public String authKind() {
        return auth.toString();
    }

    /** POST /subjects/{subject}/versions: registers (or finds) the schema, returns its global id. */
    public int register(String subject, Schema schema) {
        final Map<Schema, Integer> cache = idsBySubject.computeIfAbsent(subject, s -> new ConcurrentHashMap<>());
        final Integer cached = cache.get(schema);
        if (cached != null) {
            return cached;
        }
        final JsonNode answer = send("POST", "/subjects/" + subject + "/versions", schemaBody(schema));
        final int id = answer.get("id").asInt();
        cache.put(schema, id);
        schemasById.putIfAbsent(id, schema);
        return id;
    }

    /** GET /schemas/ids/{id}: the writer schema of a record. */
    public Schema getById(int id) {
        final Schema cached = schemasById.get(id);
        if (cached != null) {
            return cached;
        }
        final JsonNode answer = send("GET", "/schemas/ids/" + id, null);
        final Schema schema = new Schema.Parser().parse(answer.get("schema").asText());
        schemasById.putIfAbsent(id, schema);
        return schemasById.get(id);
    }

    /** GET /subjects. */
    public List<String> subjects() {
        final List<String> out = new ArrayList<>();
        send("GET", "/subjects", null).forEach(n -> out.add(n.asText()));
        return out;
    }

    /** GET /subjects/{subject}/versions. */
    public List<Integer> versions(String subject) {
        final List<Integer> out = new ArrayList<>();
        send("GET", "/subjects/" + subject + "/versions", null).forEach(n -> out.add(n.asInt()));
        return out;
    }

    /** GET /subjects/{subject}/versions/{version}; version is a number or "latest". */
    public RegisteredSchema version(String subject, String version) {
        return toRegistered(send("GET", "/subjects/" + subject + "/versions/" + version, null));
    }

    /** POST /subjects/{subject}: the registration of this exact schema under the subject. */
    public RegisteredSchema lookup(String subject, Schema schema) {
        return toRegistered(send("POST", "/subjects/" + subject, schemaBody(schema)));
    }

    /** POST /compatibility/subjects/{subject}/versions/latest. */
    public boolean isCompatible(String subject, Schema schema) {
        return send("POST", "/compatibility/subjects/" + subject + "/versions/latest", schemaBody(schema))
                .get("is_compatible").asBoolean();
    }

    /** GET /config: the global compatibility level. */
    public String globalCompatibility() {
        return send("GET", "/config", null).get("compatibilityLevel").asText();
    }

    /** PUT /config/{subject}. */
    public String setCompatibility(String subject, String level) {
        final ObjectNode body = JSON.createObjectNode().put("compatibility", level);
        return send("PUT", "/config/" + subject, body.toString()).get("compatibility").asText();
    }

    private static String schemaBody(Schema schema) {
        return JSON.createObjectNode().put("schema", schema.toString()).toString();
    }

    private static RegisteredSchema toRegistered(JsonNode n) {
        return new RegisteredSchema(n.get("subject").asText(), n.get("version").asInt(), n.get("id").asInt(),
                new Schema.Parser().parse(n.get("schema").asText()));
    }

    private JsonNode send(String method, String path, String body) {
        final URI uri = URI.create(baseUrl + path);
        final HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(30))
                .header("Accept", CONTENT_TYPE + ", application/json");
        if (auth.header() != null) {
            b.header("Authorization", auth.header());
        }
        if (body != null) {
            b.header("Content-Type", CONTENT_TYPE)
                    .method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        final HttpRequest request = b.build();
        Duration backoff = initialBackoff;
        for (int attempt = 0; ; attempt++) {
            final HttpResponse<String> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new RegistryException.Unreachable("schema registry at " + baseUrl + " is unreachable ("
                        + method + " " + path + "): " + describe(e), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RegistryException.Unreachable("interrupted while calling the schema registry at " + baseUrl, e);
            }
            final int status = response.statusCode();
            if (status >= 200 && status < 300) {
                return parse(response.body(), status);
            }
            if (status >= 500 && attempt < maxRetries) {
                sleep(backoff);
                backoff = backoff.multipliedBy(2);
                continue;
            }
            throw errorOf(method, path, status, response.body());
        }
    }

    private RegistryException errorOf(String method, String path, int status, String body) {
        int code = status;
        String message = body;
        try {
            final JsonNode n = JSON.readTree(body);
            if (n != null && n.has("error_code")) {
                code = n.get("error_code").asInt();
                message = n.path("message").asText();
            }
        } catch (IOException notJson) {
            // keep the raw body as the message: a proxy or a non-registry server answered
        }
        return RegistryException.of(status, code, "schema registry at " + baseUrl + ", " + method + " " + path
                + ": " + message);
    }

    private static JsonNode parse(String body, int status) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new RegistryException(status, 0, "schema registry answered with a body that is not JSON: " + body, e);
        }
    }

    private static String describe(IOException e) {
        final String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryException.Unreachable("interrupted during backoff", e);
        }
    }

    private static String stripTrailingSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** One version of a schema under a subject. */
    public record RegisteredSchema(String subject, int version, int id, Schema schema) {
    }
}

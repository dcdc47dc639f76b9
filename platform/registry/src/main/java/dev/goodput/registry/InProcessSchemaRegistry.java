package dev.goodput.registry;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Confluent-compatible schema registry served over HTTP on loopback from inside this JVM, for the
 * one-command local run and tests (no registry server can be installed here). It answers the REST
 * subset that serdes and common tools use, with Confluent's status codes, error codes and JSON bodies:
 *
 * <pre>
 * GET  /subjects                               GET  /schemas/ids/{id}      GET /schemas/types
 * GET  /subjects/{s}/versions                  POST /subjects/{s}/versions (register)
 * GET  /subjects/{s}/versions/{v|latest}       GET  /subjects/{s}/versions/{v}/schema
 * POST /subjects/{s}                           (lookup)
 * POST /compatibility/subjects/{s}/versions/{v|latest}
 * GET|PUT /config    GET|PUT /config/{s}
 * </pre>
 *
 * <p>With a Kafka bootstrap address it keeps its schemas in a compacted topic, as Confluent's does,
 * so ids are stable across restarts over the same broker data.
 */
public final class InProcessSchemaRegistry implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InProcessSchemaRegistry.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONTENT_TYPE = SchemaRegistryClient.CONTENT_TYPE;

    private static final Pattern SUBJECT_VERSIONS = Pattern.compile("^/subjects/([^/]+)/versions/?$");
    private static final Pattern SUBJECT_VERSION = Pattern.compile("^/subjects/([^/]+)/versions/([^/]+)/?$");
    private static final Pattern SUBJECT_VERSION_SCHEMA = Pattern.compile("^/subjects/([^/]+)/versions/([^/]+)/schema/?$");
    private static final Pattern SUBJECT = Pattern.compile("^/subjects/([^/]+)/?$");
    private static final Pattern SCHEMA_ID = Pattern.compile("^/schemas/ids/([^/]+)/?$");
    private static final Pattern COMPATIBILITY = Pattern.compile("^/compatibility/subjects/([^/]+)/versions/([^/]+)/?$");
    private static final Pattern CONFIG_SUBJECT = Pattern.compile("^/config/([^/]+)/?$");

    private final RegistryState state;
    private final SchemaLog log;
    private final HttpServer server;
    private final ExecutorService executor;
    /** The Authorization header every call must carry, or null for an open registry (tests of secured clients). */
    private volatile String requiredAuthorization;

    private InProcessSchemaRegistry(SchemaLog log, int port) {
        this.log = log;
        this.state = new RegistryState(log);
        try {
            this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + port + " for the schema registry", e);
        }
        this.executor = Executors.newFixedThreadPool(4, r -> {
            final Thread t = new Thread(r, "schema-registry-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        LOG.info("schema registry listening at {}", url());
    }

    /** A registry that keeps nothing after {@link #close()}; port 0 picks a free port. */
    public static InProcessSchemaRegistry inMemory(int port) {
        return new InProcessSchemaRegistry(SchemaLog.NONE, port);
    }

    /** A registry whose schemas live in the compacted Kafka topic {@code schemasTopic}. */
    public static InProcessSchemaRegistry onKafka(String bootstrapServers, String schemasTopic, int port) {
        final Properties client = new Properties();
        client.put("bootstrap.servers", bootstrapServers);
        return onKafka(client, schemasTopic, port);
    }

    /** The same on a cluster reached with these client properties (a secured cluster's). */
    public static InProcessSchemaRegistry onKafka(Properties client, String schemasTopic, int port) {
        return new InProcessSchemaRegistry(new KafkaSchemaLog(client, schemasTopic), port);
    }

    /** From now on every call must authenticate as {@code auth} does, or gets Confluent's 401 answer. */
    public InProcessSchemaRegistry requireAuth(RegistryAuth auth) {
        this.requiredAuthorization = auth.header();
        return this;
    }

    /** Base URL, for example {@code http://127.0.0.1:8081}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        log.close();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            final String required = requiredAuthorization;
            if (required != null && !required.equals(ex.getRequestHeaders().getFirst("Authorization"))) {
                ex.getRequestBody().readAllBytes();
                write(ex, 401, error(401, "Unauthorized"));
                return;
            }
            try {
                final JsonNode answer = route(ex.getRequestMethod(), ex.getRequestURI().getRawPath(),
                        ex.getRequestURI().getRawQuery(), ex.getRequestBody());
                write(ex, 200, answer);
            } catch (RegistryException e) {
                write(ex, e.httpStatus(), error(e.errorCode(), e.getMessage()));
            } catch (BadRequest e) {
                write(ex, e.status, error(e.code, e.getMessage()));
            } catch (RuntimeException e) {
                LOG.warn("schema registry request {} {} failed", ex.getRequestMethod(), ex.getRequestURI(), e);
                write(ex, 500, error(50001, "Error in the backend datastore: " + e.getMessage()));
            }
        }
    }

    private JsonNode route(String method, String path, String query, InputStream body) throws IOException {
        Matcher m;
        if (path.equals("/") || path.isEmpty()) {
            return JSON.createObjectNode();
        }
        if (path.equals("/subjects") || path.equals("/subjects/")) {
            requireMethod(method, "GET");
            return array(state.subjects());
        }
        if (path.equals("/schemas/types")) {
            requireMethod(method, "GET");
            return JSON.createArrayNode().add("AVRO");
        }
        if ((m = SUBJECT_VERSIONS.matcher(path)).matches()) {
            final String subject = decode(m.group(1));
            if ("POST".equals(method)) {
                final int id = state.register(subject, schemaOf(body));
                return JSON.createObjectNode().put("id", id);
            }
            requireMethod(method, "GET");
            return array(state.versions(subject));
        }
        if ((m = SUBJECT_VERSION_SCHEMA.matcher(path)).matches()) {
            requireMethod(method, "GET");
            return JSON.readTree(state.version(decode(m.group(1)), decode(m.group(2))).schema());
        }
        if ((m = SUBJECT_VERSION.matcher(path)).matches()) {
            requireMethod(method, "GET");
            return versionNode(state.version(decode(m.group(1)), decode(m.group(2))));
        }
        if ((m = SUBJECT.matcher(path)).matches()) {
            requireMethod(method, "POST");
            return versionNode(state.lookup(decode(m.group(1)), schemaOf(body)));
        }
        if ((m = SCHEMA_ID.matcher(path)).matches()) {
            requireMethod(method, "GET");
            final int id;
            try {
                id = Integer.parseInt(m.group(1));
            } catch (NumberFormatException e) {
                throw new RegistryException(404, ErrorCode.SCHEMA_NOT_FOUND, "Schema " + m.group(1) + " not found");
            }
            return JSON.createObjectNode().put("schema", state.schemaById(id));
        }
        if ((m = COMPATIBILITY.matcher(path)).matches()) {
            requireMethod(method, "POST");
            final List<String> problems = state.compatibility(decode(m.group(1)), decode(m.group(2)), schemaOf(body));
            final ObjectNode n = JSON.createObjectNode().put("is_compatible", problems.isEmpty());
            if (query != null && query.contains("verbose=true")) {
                n.set("messages", array(problems));
            }
            return n;
        }
        if (path.equals("/config") || path.equals("/config/")) {
            if ("PUT".equals(method)) {
                return JSON.createObjectNode().put("compatibility", state.setLevel(null, levelOf(body)));
            }
            requireMethod(method, "GET");
            return JSON.createObjectNode().put("compatibilityLevel", state.globalLevel());
        }
        if ((m = CONFIG_SUBJECT.matcher(path)).matches()) {
            final String subject = decode(m.group(1));
            if ("PUT".equals(method)) {
                return JSON.createObjectNode().put("compatibility", state.setLevel(subject, levelOf(body)));
            }
            requireMethod(method, "GET");
            final boolean defaultToGlobal = query != null && query.contains("defaultToGlobal=true");
            return JSON.createObjectNode().put("compatibilityLevel", state.subjectLevel(subject, defaultToGlobal));
        }
        throw new BadRequest(404, 404, "HTTP 404 Not Found");
    }

    private static String schemaOf(InputStream body) throws IOException {
        final JsonNode n = readBody(body);
        final JsonNode type = n.get("schemaType");
        if (type != null && !type.isNull() && !"AVRO".equals(type.asText())) {
            throw new RegistryException(422, ErrorCode.INVALID_SCHEMA, "Invalid schema type " + type.asText()
                    + ": this registry serves AVRO only");
        }
        final JsonNode schema = n.get("schema");
        if (schema == null || !schema.isTextual()) {
            throw new RegistryException(422, ErrorCode.INVALID_SCHEMA, "Invalid schema: the body has no \"schema\" string");
        }
        return schema.asText();
    }

    private static String levelOf(InputStream body) throws IOException {
        return readBody(body).path("compatibility").asText(null);
    }

    private static JsonNode readBody(InputStream body) throws IOException {
        final byte[] bytes = body.readAllBytes();
        try {
            final JsonNode n = JSON.readTree(bytes);
            if (n == null || !n.isObject()) {
                throw new BadRequest(400, 400, "HTTP 400 Bad Request: the body must be a JSON object");
            }
            return n;
        } catch (JsonProcessingException e) {
            throw new BadRequest(400, 400, "HTTP 400 Bad Request: unparseable JSON body");
        }
    }

    private static ObjectNode versionNode(RegistryState.Version v) {
        return JSON.createObjectNode().put("subject", v.subject()).put("version", v.version()).put("id", v.id())
                .put("schema", v.schema());
    }

    private static void requireMethod(String actual, String expected) {
        if (!expected.equals(actual)) {
            throw new BadRequest(405, 405, "HTTP 405 Method Not Allowed");
        }
    }

    private static ArrayNode array(List<?> items) {
        final ArrayNode a = JSON.createArrayNode();
        items.forEach(i -> {
            if (i instanceof Integer n) {
                a.add(n);
            } else {
                a.add(String.valueOf(i));
            }
        });
        return a;
    }

    private static ObjectNode error(int code, String message) {
        return JSON.createObjectNode().put("error_code", code).put("message", message);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static void write(HttpExchange ex, int status, JsonNode body) throws IOException {
        final byte[] bytes = JSON.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** A request this server cannot route or parse; answered like Jersey answers in Confluent's. */
    private static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;
        final int code;

        BadRequest(int status, int code, String message) {
            super(message);
            this.status = status;
            this.code = code;
        }
    }
}

package dev.goodput.registry;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The in-process registry answers as Confluent's REST API documents: status codes, error codes and
 * JSON bodies, exercised over real HTTP.
 */
class InProcessSchemaRegistryTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String V1 = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}";
    private static final String V2_COMPATIBLE = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
            + "{\"name\":\"b\",\"type\":\"string\",\"default\":\"x\"}]}";
    private static final String V2_BREAKING = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
            + "{\"name\":\"c\",\"type\":\"string\"}]}";

    private InProcessSchemaRegistry registry;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        registry = InProcessSchemaRegistry.inMemory(0);
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    @Test
    void registerReturnsAnIdAndTheSameSchemaKeepsIt() throws Exception {
        final Answer first = post("/subjects/t-value/versions", body(V1));
        assertThat(first.status).isEqualTo(200);
        assertThat(first.contentType).isEqualTo("application/vnd.schemaregistry.v1+json");
        assertThat(first.json.fieldNames()).toIterable().containsExactly("id");
        final int id = first.json.get("id").asInt();
        assertThat(post("/subjects/t-value/versions", body(V1)).json.get("id").asInt()).isEqualTo(id);
        // the same schema under another subject gets the same global id
        assertThat(post("/subjects/other-value/versions", body(V1)).json.get("id").asInt()).isEqualTo(id);
        assertThat(get("/subjects/t-value/versions").json.toString()).isEqualTo("[1]");
        assertThat(get("/subjects").json.toString()).isEqualTo("[\"other-value\",\"t-value\"]");
    }

    @Test
    void getByIdReturnsTheSchema() throws Exception {
        final int id = post("/subjects/t-value/versions", body(V1)).json.get("id").asInt();
        final Answer a = get("/schemas/ids/" + id);
        assertThat(a.status).isEqualTo(200);
        assertThat(JSON.readTree(a.json.get("schema").asText())).isEqualTo(JSON.readTree(V1));
    }

    @Test
    void unknownIdIs404With40403() throws Exception {
        final Answer a = get("/schemas/ids/999");
        assertThat(a.status).isEqualTo(404);
        assertThat(a.json.get("error_code").asInt()).isEqualTo(40403);
        assertThat(a.json.get("message").asText()).isEqualTo("Schema 999 not found");
    }

    @Test
    void unknownSubjectIs404With40401() throws Exception {
        final Answer a = get("/subjects/nope-value/versions");
        assertThat(a.status).isEqualTo(404);
        assertThat(a.json.get("error_code").asInt()).isEqualTo(40401);
        assertThat(a.json.get("message").asText()).isEqualTo("Subject 'nope-value' not found.");
        assertThat(get("/subjects/nope-value/versions/latest").json.get("error_code").asInt()).isEqualTo(40401);
    }

    @Test
    void unknownVersionIs404With40402AndBadVersionIs422() throws Exception {
        post("/subjects/t-value/versions", body(V1));
        final Answer missing = get("/subjects/t-value/versions/7");
        assertThat(missing.status).isEqualTo(404);
        assertThat(missing.json.get("error_code").asInt()).isEqualTo(40402);
        final Answer bad = get("/subjects/t-value/versions/zero");
        assertThat(bad.status).isEqualTo(422);
        assertThat(bad.json.get("error_code").asInt()).isEqualTo(42202);
    }

    @Test
    void incompatibleSchemaIs409() throws Exception {
        post("/subjects/t-value/versions", body(V1));
        final Answer a = post("/subjects/t-value/versions", body(V2_BREAKING));
        assertThat(a.status).isEqualTo(409);
        assertThat(a.json.get("error_code").asInt()).isEqualTo(409);
        assertThat(a.json.get("message").asText())
                .startsWith("Schema being registered is incompatible with an earlier schema for subject \"t-value\"");
        assertThat(get("/subjects/t-value/versions").json.toString()).isEqualTo("[1]");
    }

    @Test
    void compatibleEvolutionGetsVersionTwo() throws Exception {
        post("/subjects/t-value/versions", body(V1));
        final int id2 = post("/subjects/t-value/versions", body(V2_COMPATIBLE)).json.get("id").asInt();
        final Answer latest = get("/subjects/t-value/versions/latest");
        assertThat(latest.json.get("version").asInt()).isEqualTo(2);
        assertThat(latest.json.get("id").asInt()).isEqualTo(id2);
        assertThat(latest.json.get("subject").asText()).isEqualTo("t-value");
    }

    @Test
    void compatibilityEndpointAnswersIsCompatible() throws Exception {
        post("/subjects/t-value/versions", body(V1));
        assertThat(post("/compatibility/subjects/t-value/versions/latest", body(V2_COMPATIBLE)).json.toString())
                .isEqualTo("{\"is_compatible\":true}");
        assertThat(post("/compatibility/subjects/t-value/versions/latest", body(V2_BREAKING)).json.toString())
                .isEqualTo("{\"is_compatible\":false}");
    }

    @Test
    void invalidSchemaIs422With42201() throws Exception {
        final Answer a = post("/subjects/t-value/versions", "{\"schema\":\"{not avro\"}");
        assertThat(a.status).isEqualTo(422);
        assertThat(a.json.get("error_code").asInt()).isEqualTo(42201);
    }

    @Test
    void lookupFindsARegisteredSchemaOr40403() throws Exception {
        final int id = post("/subjects/t-value/versions", body(V1)).json.get("id").asInt();
        final Answer found = post("/subjects/t-value", body(V1));
        assertThat(found.json.get("id").asInt()).isEqualTo(id);
        assertThat(found.json.get("version").asInt()).isEqualTo(1);
        final Answer missing = post("/subjects/t-value", body(V2_COMPATIBLE));
        assertThat(missing.status).isEqualTo(404);
        assertThat(missing.json.get("error_code").asInt()).isEqualTo(40403);
    }

    @Test
    void configDefaultsToBackwardAndCanBeChanged() throws Exception {
        assertThat(get("/config").json.toString()).isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");
        assertThat(put("/config/t-value", "{\"compatibility\":\"NONE\"}").json.toString())
                .isEqualTo("{\"compatibility\":\"NONE\"}");
        post("/subjects/t-value/versions", body(V1));
        assertThat(post("/subjects/t-value/versions", body(V2_BREAKING)).status).isEqualTo(200);
        final Answer bad = put("/config", "{\"compatibility\":\"SIDEWAYS\"}");
        assertThat(bad.status).isEqualTo(422);
        assertThat(bad.json.get("error_code").asInt()).isEqualTo(42203);
        assertThat(get("/config/unset-value").json.get("error_code").asInt()).isEqualTo(40408);
    }

    @Test
    void unknownPathIs404() throws Exception {
        final Answer a = get("/nothing/here");
        assertThat(a.status).isEqualTo(404);
        assertThat(a.json.get("error_code").asInt()).isEqualTo(404);
    }

    private static String body(String schema) {
        return JSON.createObjectNode().put("schema", schema).toString();
    }

    private Answer get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(registry.url() + path)).GET().build());
    }

    private Answer post(String path, String body) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(registry.url() + path))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private Answer put(String path, String body) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(registry.url() + path))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private Answer send(HttpRequest r) throws Exception {
        final HttpResponse<String> resp = http.send(r, HttpResponse.BodyHandlers.ofString());
        return new Answer(resp.statusCode(), resp.headers().firstValue("Content-Type").orElse(""),
                JSON.readTree(resp.body()));
    }

    private record Answer(int status, String contentType, JsonNode json) {
    }
}

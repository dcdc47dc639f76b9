package dev.goodput.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaParseException;

/**
 * The registry's data and rules, without HTTP: subjects with their versions, global schema ids, and
 * compatibility levels, behaving as Confluent's registry does for Avro. Every change is first
 * appended to a {@link SchemaLog}, so a registry rebuilt from the same log hands out the same ids.
 * Errors are {@link RegistryException}s with Confluent's status codes and messages.
 */
final class RegistryState {

    static final Set<String> LEVELS = Set.of("NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD",
            "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE");

    /** One version of one subject. */
    record Version(String subject, int version, int id, String schema) {
    }

    private final SchemaLog log;
    private final Map<Integer, String> schemaById = new HashMap<>();
    private final Map<String, Integer> idBySchema = new HashMap<>();
    private final Map<String, List<Version>> subjects = new TreeMap<>();
    private final Map<String, String> subjectLevels = new HashMap<>();
    private String globalLevel = "BACKWARD";
    private int maxId;

    RegistryState(SchemaLog log) {
        this.log = log;
        log.replay(this::applySchema, this::applyConfig);
    }

    synchronized int register(String subject, String schemaText) {
        final Schema schema = parse(schemaText);
        final String canonical = schema.toString();
        final List<Version> versions = subjects.getOrDefault(subject, List.of());
        for (Version v : versions) {
            if (v.schema().equals(canonical)) {
                return v.id();
            }
        }
        final List<String> problems = incompatibilities(subject, schema, versions);
        if (!problems.isEmpty()) {
            throw new RegistryException(409, ErrorCode.INCOMPATIBLE_SCHEMA,
                    "Schema being registered is incompatible with an earlier schema for subject \"" + subject
                            + "\", details: " + problems);
        }
        final Integer existing = idBySchema.get(canonical);
        final int id = existing != null ? existing : maxId + 1;
        final Version v = new Version(subject, versions.isEmpty() ? 1 : versions.get(versions.size() - 1).version() + 1,
                id, canonical);
        try {
            log.appendSchema(v);
        } catch (RuntimeException e) {
            throw new RegistryException(500, ErrorCode.BACKEND_STORE_ERROR, "Error in the backend datastore: "
                    + e.getMessage(), e);
        }
        applySchema(v);
        return id;
    }

    synchronized String schemaById(int id) {
        final String s = schemaById.get(id);
        if (s == null) {
            throw new RegistryException(404, ErrorCode.SCHEMA_NOT_FOUND, "Schema " + id + " not found");
        }
        return s;
    }

    synchronized List<String> subjects() {
        return new ArrayList<>(subjects.keySet());
    }

    synchronized List<Integer> versions(String subject) {
        return versionsOf(subject).stream().map(Version::version).toList();
    }

    synchronized Version version(String subject, String version) {
        final List<Version> versions = versionsOf(subject);
        if ("latest".equals(version) || "-1".equals(version)) {
            return versions.get(versions.size() - 1);
        }
        final int n = parseVersion(version);
        return versions.stream().filter(v -> v.version() == n).findFirst()
                .orElseThrow(() -> new RegistryException(404, ErrorCode.VERSION_NOT_FOUND, "Version " + n + " not found."));
    }

    synchronized Version lookup(String subject, String schemaText) {
        final List<Version> versions = versionsOf(subject);
        final String canonical = parse(schemaText).toString();
        return versions.stream().filter(v -> v.schema().equals(canonical)).findFirst()
                .orElseThrow(() -> new RegistryException(404, ErrorCode.SCHEMA_NOT_FOUND, "Schema not found"));
    }

    synchronized List<String> compatibility(String subject, String version, String schemaText) {
        final Schema schema = parse(schemaText);
        final List<Version> all = versionsOf(subject);
        if ("latest".equals(version) || "-1".equals(version)) {
            return incompatibilities(subject, schema, all);
        }
        final Version v = version(subject, version);
        return incompatibilities(subject, schema, List.of(v));
    }

    synchronized String globalLevel() {
        return globalLevel;
    }

    synchronized String subjectLevel(String subject, boolean defaultToGlobal) {
        final String level = subjectLevels.get(subject);
        if (level != null) {
            return level;
        }
        if (defaultToGlobal) {
            return globalLevel;
        }
        throw new RegistryException(404, ErrorCode.SUBJECT_COMPATIBILITY_NOT_CONFIGURED,
                "Subject '" + subject + "' does not have subject-level compatibility configured");
    }

    synchronized String setLevel(String subjectOrNull, String level) {
        final String upper = level == null ? "" : level.toUpperCase(Locale.ROOT);
        if (!LEVELS.contains(upper)) {
            throw new RegistryException(422, ErrorCode.INVALID_COMPATIBILITY_LEVEL,
                    "Invalid compatibility level. Valid values are none, backward, forward, full, "
                            + "backward_transitive, forward_transitive, and full_transitive");
        }
        log.appendConfig(subjectOrNull, upper);
        applyConfig(subjectOrNull, upper);
        return upper;
    }

    private List<Version> versionsOf(String subject) {
        final List<Version> versions = subjects.get(subject);
        if (versions == null || versions.isEmpty()) {
            throw new RegistryException(404, ErrorCode.SUBJECT_NOT_FOUND, "Subject '" + subject + "' not found.");
        }
        return versions;
    }

    /** Incompatibilities of a new schema with the versions its subject's level checks it against. */
    private List<String> incompatibilities(String subject, Schema candidate, List<Version> versions) {
        final String level = subjectLevels.getOrDefault(subject, globalLevel);
        if (versions.isEmpty() || "NONE".equals(level)) {
            return List.of();
        }
        final List<Version> against = level.endsWith("_TRANSITIVE") ? versions : List.of(versions.get(versions.size() - 1));
        final boolean backward = level.startsWith("BACKWARD") || level.startsWith("FULL");
        final boolean forward = level.startsWith("FORWARD") || level.startsWith("FULL");
        final List<String> problems = new ArrayList<>();
        for (Version v : against) {
            final Schema old = new Schema.Parser().parse(v.schema());
            if (backward) {
                describe(SchemaCompatibility.checkReaderWriterCompatibility(candidate, old), "reader", v, problems);
            }
            if (forward) {
                describe(SchemaCompatibility.checkReaderWriterCompatibility(old, candidate), "writer", v, problems);
            }
        }
        return problems;
    }

    private static void describe(SchemaCompatibility.SchemaPairCompatibility result, String role, Version v,
                                 List<String> problems) {
        if (result.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
            result.getResult().getIncompatibilities().forEach(i -> problems.add("{oldSchemaVersion: " + v.version()
                    + ", newSchemaRole: " + role + ", type: " + i.getType()
                    + ", location: " + i.getLocation() + ", message: " + i.getMessage() + "}"));
        }
    }

    private static Schema parse(String text) {
        if (text == null || text.isBlank()) {
            throw new RegistryException(422, ErrorCode.INVALID_SCHEMA, "Invalid schema: empty schema");
        }
        try {
            return new Schema.Parser().parse(text);
        } catch (SchemaParseException | NullPointerException e) {
            throw new RegistryException(422, ErrorCode.INVALID_SCHEMA, "Invalid schema: " + e.getMessage());
        }
    }

    private static int parseVersion(String version) {
        try {
            final int n = Integer.parseInt(version);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // fall through to the registry's own error
        }
        throw new RegistryException(422, ErrorCode.INVALID_VERSION, "The specified version '" + version
                + "' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"");
    }

    private void applySchema(Version v) {
        final List<Version> versions = subjects.computeIfAbsent(v.subject(), s -> new ArrayList<>());
        if (versions.stream().noneMatch(x -> x.version() == v.version())) {
            versions.add(v);
        }
        schemaById.putIfAbsent(v.id(), v.schema());
        idBySchema.putIfAbsent(v.schema(), v.id());
        maxId = Math.max(maxId, v.id());
    }

    private void applyConfig(String subjectOrNull, String level) {
        if (subjectOrNull == null) {
            globalLevel = level;
        } else {
            subjectLevels.put(subjectOrNull, level);
        }
    }
}

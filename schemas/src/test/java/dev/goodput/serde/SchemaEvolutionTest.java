package dev.goodput.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.junit.jupiter.api.Test;

/**
 * Fails the build when a schema change would break readers: each schema in src/main/avro must be
 * able to read data written with the released version kept in compat/ (BACKWARD, the registry's
 * default). When a change is intended and compatible, copy the new .avsc into compat/ on release.
 */
class SchemaEvolutionTest {

    private static final Path CURRENT = Path.of("src/main/avro");
    private static final Path RELEASED = Path.of("compat");

    @Test
    void everyCurrentSchemaReadsItsReleasedVersion() throws IOException {
        final List<Path> current = list(CURRENT);
        assertThat(current).isNotEmpty();
        for (Path file : current) {
            final Path released = RELEASED.resolve(file.getFileName());
            assertThat(released).as("released copy of %s (add it to compat/ when the schema ships)", file).exists();
            final Schema reader = parse(file);
            final Schema writer = parse(released);
            final SchemaCompatibility.SchemaPairCompatibility result =
                    SchemaCompatibility.checkReaderWriterCompatibility(reader, writer);
            assertThat(result.getType()).as("%s must read data written with %s: %s", file, released,
                    result.getDescription()).isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        }
    }

    @Test
    void theCheckCatchesABreakingChange() throws IOException {
        final Schema released = parse(RELEASED.resolve("TokenEvent.avsc"));
        final Schema broken = new Schema.Parser().parse(released.toString().replace(
                "{\"name\":\"tokens\",\"type\":\"int\"", "{\"name\":\"token_count\",\"type\":\"int\""));
        assertThat(broken.getField("token_count")).isNotNull();
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(broken, released).getType())
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.INCOMPATIBLE);
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".avsc")).sorted().toList();
        }
    }

    /** Parses a file, with RequestEvent's named types known first (others refer to them). */
    private static Schema parse(Path file) throws IOException {
        final Schema.Parser parser = new Schema.Parser();
        final Path dir = file.getParent();
        if (!file.getFileName().toString().equals("RequestEvent.avsc")) {
            parser.parse(Files.readString(dir.resolve("RequestEvent.avsc")));
        }
        return parser.parse(Files.readString(file));
    }
}

package dev.goodput.contract.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The prompt corpus: JSON lines of {"id", "prompt", "expected"}. */
public record Corpus(List<Entry> entries) {

    /** One prompt and the answer the quality metric expects. */
    public record Entry(String id, String prompt, String expected) {
    }

    public static Corpus load(Path file) {
        final ObjectMapper json = new ObjectMapper();
        final List<Entry> out = new ArrayList<>();
        final List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the prompt corpus " + file + ": " + e.getMessage(), e);
        }
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            try {
                final JsonNode n = json.readTree(lines.get(i));
                out.add(new Entry(n.path("id").asText("line-" + (i + 1)), n.get("prompt").asText(),
                        n.path("expected").asText("")));
            } catch (IOException | NullPointerException e) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": expected {\"id\", \"prompt\", \"expected\"}", e);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("the prompt corpus " + file + " is empty");
        }
        return new Corpus(List.copyOf(out));
    }

    public Entry get(long i) {
        return entries.get((int) Math.floorMod(i, entries.size()));
    }
}

package dev.goodput.generator.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A request trace to replay: when each request is sent and, where the trace says, how long its
 * prompt and answer are and which prompt blocks it shares with others. Read once, at start, so a
 * bad file fails before any request with the line and what was expected there.
 *
 * <p>Formats: plain send offsets (seconds, one per line); the Azure LLM inference traces (CSV:
 * {@code TIMESTAMP,ContextTokens,GeneratedTokens}); BurstGPT (CSV: {@code Timestamp,Model,Request
 * tokens,Response tokens,Total tokens,Log Type}); Mooncake (JSON lines: {@code timestamp} in ms,
 * {@code input_length}, {@code output_length}, {@code hash_ids}, one id per block of
 * {@value #MOONCAKE_BLOCK_TOKENS} prompt tokens, shared by requests that share that prefix).
 *
 * @param entries  in send order, offsets from the first request
 * @param skipped  rows left out, each with its line and why (BurstGPT's failed requests have no answer to size)
 */
public record Trace(Path file, Format format, double speedup, List<Entry> entries, List<String> skipped) {

    /** Mooncake's block: each hash id stands for this many prompt tokens. */
    public static final int MOONCAKE_BLOCK_TOKENS = 512;

    /** The trace formats read. */
    public enum Format {
        OFFSETS, AZURE, BURSTGPT, MOONCAKE;

        /** From a flag value: offsets, azure, burstgpt or mooncake (any case). */
        public static Format parse(String s) {
            try {
                return valueOf(s.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown trace format '" + s + "': use offsets, azure, burstgpt or mooncake");
            }
        }
    }

    /**
     * One request of the trace.
     *
     * @param offsetUs     send time from the trace's first request, after the speed-up
     * @param inputTokens  prompt length, or null when the trace does not say
     * @param outputTokens answer length, or null when the trace does not say
     * @param model        the model the trace names, or null
     * @param hashIds      the prompt's block ids (Mooncake), or null
     */
    public record Entry(long offsetUs, Integer inputTokens, Integer outputTokens, String model, long[] hashIds) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A trace run's scenario id: {@code trace-} and the file's name (and the speed-up, when not 1). */
    public String scenarioId() {
        final String name = file.getFileName().toString().replaceFirst("\\.[A-Za-z0-9]+$", "").replaceAll("[^A-Za-z0-9._-]", "_");
        return "trace-" + name + (speedup == 1 ? "" : "-x" + java.math.BigDecimal.valueOf(speedup).stripTrailingZeros().toPlainString());
    }

    /** The trace's mean send rate after the speed-up: its requests over the span from the first send to the last. */
    public Double meanRateRps() {
        final long spanUs = entries.get(entries.size() - 1).offsetUs() - entries.get(0).offsetUs();
        return spanUs <= 0 ? null : (entries.size() - 1) * 1e6 / spanUs;
    }

    /** One line for the console: what was read, over how long, with what lengths and sharing, and what was left out. */
    public String describe() {
        final StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "trace %s (%s): %d requests over %.1f s (speed-up %sx)",
                file.getFileName(), format.name().toLowerCase(Locale.ROOT), entries.size(),
                entries.get(entries.size() - 1).offsetUs() / 1e6, java.math.BigDecimal.valueOf(speedup).stripTrailingZeros().toPlainString()));
        final var in = entries.stream().filter(e -> e.inputTokens() != null).mapToInt(Entry::inputTokens).summaryStatistics();
        final var out = entries.stream().filter(e -> e.outputTokens() != null).mapToInt(Entry::outputTokens).summaryStatistics();
        if (in.getCount() > 0) {
            sb.append(String.format(Locale.ROOT, "; input %d-%d tokens, output %d-%d tokens from the trace", in.getMin(), in.getMax(),
                    out.getMin(), out.getMax()));
        }
        final long blocks = entries.stream().filter(e -> e.hashIds() != null).mapToLong(e -> e.hashIds().length).sum();
        if (blocks > 0) {
            final java.util.Set<Long> seen = new java.util.HashSet<>();
            long shared = 0;
            for (Entry e : entries) {
                if (e.hashIds() != null) {
                    for (long id : e.hashIds()) {
                        if (!seen.add(id)) {
                            shared++;
                        }
                    }
                }
            }
            sb.append(String.format(Locale.ROOT, "; %d of %d prompt blocks repeat an earlier request's", shared, blocks));
        }
        if (!skipped.isEmpty()) {
            sb.append("; ").append(skipped.size()).append(" rows left out (").append(skipped.get(0))
                    .append(skipped.size() > 1 ? ", ..." : "").append(')');
        }
        return sb.toString();
    }

    /** The trace's request number {@code seq} (0-based, in send order), or null past its end. */
    public Entry entry(long seq) {
        return seq < entries.size() ? entries.get((int) seq) : null;
    }

    /**
     * Reads a trace.
     *
     * @param format  null to tell it from the file's first line
     * @param speedup send times are divided by it: 2 replays the trace twice as fast
     */
    public static Trace read(Path file, Format format, double speedup) {
        if (!(speedup > 0) || Double.isInfinite(speedup)) {
            throw new IllegalArgumentException("--trace-speedup must be a positive number, got " + speedup);
        }
        final List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the trace file " + file + ": " + e.getMessage(), e);
        }
        final Format f = format != null ? format : detect(lines);
        final List<Raw> raw = new ArrayList<>();
        final List<String> skipped = new ArrayList<>();
        switch (f) {
            case OFFSETS -> offsets(file, lines, raw);
            case AZURE -> azure(file, lines, raw);
            case BURSTGPT -> burstgpt(file, lines, raw, skipped);
            case MOONCAKE -> mooncake(file, lines, raw);
            default -> throw new IllegalStateException(f.name());
        }
        if (raw.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no request (" + f.name().toLowerCase(Locale.ROOT) + " trace)");
        }
        raw.sort(Comparator.comparingDouble(Raw::seconds));
        final double first = f == Format.OFFSETS ? 0 : raw.get(0).seconds();
        final List<Entry> entries = new ArrayList<>(raw.size());
        for (Raw r : raw) {
            entries.add(new Entry(Math.round((r.seconds() - first) / speedup * 1e6), r.input(), r.output(), r.model(), r.hashIds()));
        }
        return new Trace(file, f, speedup, List.copyOf(entries), List.copyOf(skipped));
    }

    private record Raw(double seconds, Integer input, Integer output, String model, long[] hashIds) {
    }

    /** The format a file's first non-blank, non-comment line shows. */
    static Format detect(List<String> lines) {
        for (String l : lines) {
            final String t = l.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            if (t.startsWith("{")) {
                return Format.MOONCAKE;
            }
            final String lower = t.toLowerCase(Locale.ROOT);
            if (lower.startsWith("timestamp,contexttokens")) {
                return Format.AZURE;
            }
            if (lower.startsWith("timestamp,model")) {
                return Format.BURSTGPT;
            }
            return Format.OFFSETS;
        }
        return Format.OFFSETS;
    }

    private static void offsets(Path file, List<String> lines, List<Raw> out) {
        for (int i = 0; i < lines.size(); i++) {
            final String t = lines.get(i).strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            try {
                out.add(new Raw(Double.parseDouble(t.split("[,\\s]")[0]), null, null, null, null));
            } catch (NumberFormatException e) {
                throw bad(file, i, "seconds from the start", t);
            }
        }
    }

    private static void azure(Path file, List<String> lines, List<Raw> out) {
        for (int i = 1; i < lines.size(); i++) {
            final String t = lines.get(i).strip();
            if (t.isEmpty()) {
                continue;
            }
            final String[] c = t.split(",");
            if (c.length < 3) {
                throw bad(file, i, "TIMESTAMP,ContextTokens,GeneratedTokens", t);
            }
            try {
                // "2023-11-16 18:15:46.6805900": seven fraction digits, no zone (the traces' own clock)
                final LocalDateTime ts = LocalDateTime.parse(c[0].strip().replace(' ', 'T'));
                final double seconds = ts.toEpochSecond(ZoneOffset.UTC) + ts.getNano() / 1e9;
                out.add(new Raw(seconds, tokens(c[1]), tokens(c[2]), null, null));
            } catch (DateTimeParseException | NumberFormatException e) {
                throw bad(file, i, "TIMESTAMP (yyyy-MM-dd HH:mm:ss.fffffff),ContextTokens,GeneratedTokens", t);
            }
        }
    }

    private static void burstgpt(Path file, List<String> lines, List<Raw> out, List<String> skipped) {
        for (int i = 1; i < lines.size(); i++) {
            final String t = lines.get(i).strip();
            if (t.isEmpty()) {
                continue;
            }
            final String[] c = t.split(",");
            if (c.length < 4) {
                throw bad(file, i, "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type", t);
            }
            try {
                final double seconds = Double.parseDouble(c[0].strip());
                final int response = tokens(c[3]);
                if (response == 0) {
                    skipped.add("line " + (i + 1) + ": no response tokens (a failed request in the original trace)");
                    continue;
                }
                out.add(new Raw(seconds, tokens(c[2]), response, c[1].strip(), null));
            } catch (NumberFormatException e) {
                throw bad(file, i, "Timestamp (seconds),Model,Request tokens,Response tokens,Total tokens,Log Type", t);
            }
        }
    }

    private static void mooncake(Path file, List<String> lines, List<Raw> out) {
        for (int i = 0; i < lines.size(); i++) {
            final String t = lines.get(i).strip();
            if (t.isEmpty()) {
                continue;
            }
            try {
                final JsonNode n = JSON.readTree(t);
                if (!n.path("timestamp").isNumber() || !n.path("input_length").isInt() || !n.path("output_length").isInt()) {
                    throw bad(file, i, "{\"timestamp\": ms, \"input_length\": n, \"output_length\": n, \"hash_ids\": [...]}", t);
                }
                long[] ids = null;
                if (n.path("hash_ids").isArray()) {
                    ids = new long[n.path("hash_ids").size()];
                    for (int k = 0; k < ids.length; k++) {
                        ids[k] = n.path("hash_ids").get(k).asLong();
                    }
                }
                out.add(new Raw(n.path("timestamp").asDouble() / 1000, n.path("input_length").asInt(), n.path("output_length").asInt(),
                        null, ids));
            } catch (IOException e) {
                throw bad(file, i, "one JSON object per line", t);
            }
        }
    }

    private static int tokens(String s) {
        final int n = Integer.parseInt(s.strip());
        if (n < 0) {
            throw new NumberFormatException("negative");
        }
        return n;
    }

    private static IllegalArgumentException bad(Path file, int index, String expected, String got) {
        return new IllegalArgumentException(file + " line " + (index + 1) + ": expected " + expected + ", got: "
                + (got.length() > 120 ? got.substring(0, 120) + "..." : got));
    }
}

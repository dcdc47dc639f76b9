package dev.goodput.sink;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.goodput.avro.CostRecord;
import dev.goodput.avro.LatencySummary;
import dev.goodput.avro.WindowStats;
import dev.goodput.registry.SchemaRegistryClient;

/**
 * Appends every final window record and every cost record (committed only) to JSON-lines and CSV
 * files in a folder: window-stats.jsonl/.csv and cost.jsonl/.csv, one flat row per record, times
 * in ISO-8601 and latencies in microseconds.
 *
 * <p>Each record is written once, by key (contract, scenario, window start; the span and its end for cost):
 * the follower reads the topics from the start at every start, and the keys already in the JSON-lines
 * files are skipped, so a restarted export neither writes a row twice nor misses one (it used to
 * append everything again, and a sum over cost.csv came out wrong).
 */
public final class FileExporter implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ResultsFollower follower;
    private final AtomicLong seen = new AtomicLong();

    public FileExporter(Properties client, SchemaRegistryClient registry, String windowTopic, String costTopic, Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        final Sink windowFiles = new Sink(dir, "window-stats", FileExporter::windowKey);
        final Sink costFiles = new Sink(dir, "cost", FileExporter::costKey);
        this.follower = new ResultsFollower(client, registry, windowTopic, costTopic, "goodput-files", false,
                new ResultsFollower.Listener() {
                    @Override
                    public void onWindow(WindowStats w) {
                        if (w.getIsFinal()) {
                            windowFiles.write(row(w));
                        }
                        seen.incrementAndGet();
                    }

                    @Override
                    public void onCost(CostRecord c) {
                        costFiles.write(row(c));
                        seen.incrementAndGet();
                    }

                    @Override
                    public void afterPoll() {
                        windowFiles.flush();
                        costFiles.flush();
                    }

                    @Override
                    public void onStop() {
                        windowFiles.close();
                        costFiles.close();
                    }
                });
    }

    /** Window and cost records read so far, written or skipped as already there (tests wait on it). */
    public long recordsSeen() {
        return seen.get();
    }

    static List<Object> windowKey(Map<String, Object> row) {
        return List.of(row.get("contract_id"), row.get("scenario_id"), row.get("window_start"));
    }

    static List<Object> costKey(Map<String, Object> row) {
        // a rolling span's updates share its start and differ by their end
        return List.of(row.get("contract_id"), row.get("scenario_id"), row.get("span"), row.get("window_start"),
                row.get("window_end"));
    }

    static Map<String, Object> row(WindowStats w) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("contract_id", w.getContractId());
        m.put("scenario_id", w.getScenarioId());
        m.put("window_start", w.getWindowStartUs().toString());
        m.put("window_end", w.getWindowEndUs().toString());
        m.put("requests_total", w.getRequestsTotal());
        m.put("requests_ok", w.getRequestsOk());
        m.put("requests_error", w.getRequestsError());
        m.put("requests_timeout", w.getRequestsTimeout());
        m.put("requests_abandoned", w.getRequestsAbandoned());
        m.put("good_requests", w.getGoodRequests());
        m.put("good_fraction", w.getGoodFraction());
        m.put("goodput_rps", w.getGoodputRps());
        m.put("goodput_tokens_per_s", w.getGoodputTokensPerS());
        m.put("output_tokens_per_s", w.getOutputTokensPerS());
        m.put("tokens_per_gpu_second", w.getTokensPerGpuSecond());
        latency(m, "ttft", w.getTtft());
        latency(m, "itl", w.getItl());
        latency(m, "tpot", w.getTpot());
        latency(m, "e2e", w.getE2e());
        m.put("late_events", w.getLateEvents());
        return m;
    }

    static Map<String, Object> row(CostRecord c) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("contract_id", c.getContractId());
        m.put("scenario_id", c.getScenarioId());
        m.put("span", c.getSpan());
        m.put("window_start", c.getWindowStartUs().toString());
        m.put("window_end", c.getWindowEndUs().toString());
        m.put("price_key", c.getPriceKey());
        m.put("priced", c.getPriced());
        m.put("unpriced_reason", c.getUnpricedReason());
        m.put("usd_per_gpu_hour", c.getUsdPerGpuHour());
        m.put("price_effective_from", c.getPriceEffectiveFromUs() == null ? null : c.getPriceEffectiveFromUs().toString());
        m.put("price_source", c.getPriceSource());
        m.put("achieved_tokens_per_s", c.getAchievedTokensPerS());
        m.put("compute_cost_per_m_usd", c.getComputeCostPerMUsd());
        m.put("cost_per_successful_m_usd", c.getCostPerSuccessfulMUsd());
        m.put("utilization", c.getUtilization());
        return m;
    }

    private static void latency(Map<String, Object> m, String name, LatencySummary l) {
        m.put(name + "_count", l.getCount());
        m.put(name + "_p50_us", l.getP50Us());
        m.put(name + "_p90_us", l.getP90Us());
        m.put(name + "_p99_us", l.getP99Us());
        m.put(name + "_p999_us", l.getP999Us());
        m.put(name + "_max_us", l.getMaxUs());
    }

    @Override
    public void close() {
        follower.close();
    }

    /** A JSON-lines file and a CSV file (header written with the first row) for one record kind, each key once. */
    private static final class Sink {
        private final BufferedWriter jsonl;
        private final BufferedWriter csv;
        private final Function<Map<String, Object>, List<Object>> key;
        private final Set<List<Object>> written = new HashSet<>();
        private boolean header;

        Sink(Path dir, String name, Function<Map<String, Object>, List<Object>> key) {
            this.key = key;
            final Path jsonlPath = dir.resolve(name + ".jsonl");
            try {
                dropCutLine(jsonlPath);
                dropCutLine(dir.resolve(name + ".csv"));
                if (Files.exists(jsonlPath)) {
                    for (String line : Files.readAllLines(jsonlPath, StandardCharsets.UTF_8)) {
                        if (!line.isBlank()) {
                            @SuppressWarnings("unchecked")
                            final Map<String, Object> row = JSON.readValue(line, Map.class);
                            written.add(key.apply(row));
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the export file " + jsonlPath, e);
            }
            try {
                jsonl = Files.newBufferedWriter(dir.resolve(name + ".jsonl"), StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                final Path csvPath = dir.resolve(name + ".csv");
                header = Files.exists(csvPath) && Files.size(csvPath) > 0;
                csv = Files.newBufferedWriter(csvPath, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open the export files in " + dir, e);
            }
        }

        /** A line a crash cut short (no newline at the end) is removed: its row is written again, whole. */
        private static void dropCutLine(Path file) throws IOException {
            if (!Files.exists(file) || Files.size(file) == 0) {
                return;
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                long end = ch.size();
                final ByteBuffer one = ByteBuffer.allocate(1);
                while (end > 0) {
                    one.clear();
                    ch.read(one, end - 1);
                    if (one.get(0) == '\n') {
                        break;
                    }
                    end--;
                }
                ch.truncate(end);
            }
        }

        void write(Map<String, Object> row) {
            if (!written.add(key.apply(row))) {
                return;
            }
            try {
                jsonl.write(JSON.writeValueAsString(row));
                jsonl.newLine();
                if (!header) {
                    csv.write(String.join(",", row.keySet()));
                    csv.newLine();
                    header = true;
                }
                csv.write(String.join(",", row.values().stream().map(Sink::cell).toList()));
                csv.newLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static String cell(Object v) {
            if (v == null) {
                return "";
            }
            final String s = v instanceof Double d ? String.format(Locale.ROOT, "%s", d) : v.toString();
            return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
        }

        void flush() {
            try {
                jsonl.flush();
                csv.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void close() {
            try {
                jsonl.close();
                csv.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}

package dev.goodput.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
/**
 * Where a benchmark's figures go as data: one CSV row per run, appended by the benchmark itself to
 * a file beside docs/benchmarks.md (its date, the commit it ran, then its figures), so that the page
 * holds one short table per benchmark and the runs stay as data. A file whose header is not this
 * benchmark's columns is refused, never appended to: columns never shift under old rows.
 */
final class BenchData {
    /** bench-streams' rate phase: the readers' warm token events/s, the raw consumer right before and right after the app. */
    static final List<String> STREAMS = List.of("requests", "chunks", "run_ms", "raw_before_per_s", "raw_after_per_s",
            "noop_before_per_s", "noop_after_per_s", "app_per_s", "app_per_core_s");
    /** bench-producer, a row per phase. */
    static final List<String> PRODUCER = List.of("phase", "requests", "ok", "ttft_error_p50_ms", "ttft_error_p99_ms",
            "ttft_error_max_ms", "lateness_p99_ms", "chunks_per_s", "generator_cores", "chunks_per_core_s");
    /** bench-proxy, a row per phase: what nginx and Goodput's proxy add over the direct path, and their CPU per chunk. */
    static final List<String> PROXY = List.of("phase", "ttft_p99_added_nginx_ms", "ttft_p99_added_goodput_ms",
            "itl_p99_added_nginx_ms", "itl_p99_added_goodput_ms", "cpu_per_chunk_nginx_us", "cpu_per_chunk_goodput_us");

    private final Path file;

    private BenchData(Path file) {
        this.file = file;
    }

    /** The data file {@code option} names ({@code none}: no record), or the checkout's docs/benchmarks/{@code name}.csv. */
    static BenchData of(String option, String name) {
        if ("none".equals(option)) {
            return new BenchData(null);
        }
        return new BenchData(option != null ? Path.of(option)
                : Path.of(System.getProperty("goodput.home", "."), "docs", "benchmarks", name + ".csv"));
    }

    /** Appends one row: the date, the commit, then {@code values} under {@code columns}; returns where, or null without a record. */
    Path append(List<String> columns, List<?> values) {
        if (file == null) {
            return null;
        }
        if (columns.size() != values.size()) {
            throw new IllegalArgumentException(columns.size() + " columns, " + values.size() + " values");
        }
        final List<String> header = new ArrayList<>(List.of("date", "commit"));
        header.addAll(columns);
        final List<String> row = new ArrayList<>(List.of(LocalDate.now(ZoneOffset.UTC).toString(), commit()));
        values.forEach(v -> row.add(cell(v)));
        try {
            final String head = String.join(",", header);
            if (Files.exists(file)) {
                final String first = Files.readAllLines(file, StandardCharsets.UTF_8).stream().findFirst().orElse("");
                if (!first.equals(head)) {
                    throw new IllegalStateException(file + " has the columns " + first + ", not this benchmark's " + head
                            + ": give another file with --record");
                }
            } else {
                Files.createDirectories(file.toAbsolutePath().getParent());
                Files.writeString(file, head + "\n", StandardCharsets.UTF_8);
            }
            Files.writeString(file, String.join(",", row) + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + file + ": " + e.getMessage(), e);
        }
    }

    /** A value as a CSV cell: numbers in plain ROOT form, text quoted where it holds a comma or a quote. */
    static String cell(Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof Double d) {
            return Double.isNaN(d) || Double.isInfinite(d) ? ""
                    : new BigDecimal(d).round(new MathContext(6)).stripTrailingZeros().toPlainString();
        }
        final String s = String.valueOf(v);
        return s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    /** The checkout's commit, short, with {@code +changes} when its tree differs from it; {@code unknown} outside a checkout. */
    static String commit() {
        final String home = System.getProperty("goodput.home", ".");
        final String head = git(home, "rev-parse", "--short", "HEAD");
        if (head == null) {
            return "unknown";
        }
        final String changes = git(home, "status", "--porcelain", "--untracked-files=no");
        return changes == null || changes.isBlank() ? head : head + "+changes";
    }

    private static String git(String dir, String... args) {
        final List<String> cmd = new ArrayList<>(List.of("git", "-C", dir));
        cmd.addAll(List.of(args));
        try {
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}

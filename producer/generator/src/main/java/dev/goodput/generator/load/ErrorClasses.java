package dev.goodput.generator.load;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Failed requests by error class, each with the first message seen, so a failing run can say what
 * failed at its end instead of leaving it to be found on llm.requests. Safe to update from HTTP threads.
 */
public final class ErrorClasses {

    /** One class: how many requests, and one example message (already redacted by the client). */
    public record Entry(String errorClass, long count, String example) {
    }

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final Map<String, String> examples = new ConcurrentHashMap<>();

    public void add(String errorClass, String message) {
        final String c = errorClass == null ? "unknown" : errorClass;
        counts.computeIfAbsent(c, k -> new LongAdder()).increment();
        if (message != null) {
            examples.putIfAbsent(c, message);
        }
    }

    /** Adds every class of {@code other}. */
    public void addAll(ErrorClasses other) {
        other.counts.forEach((c, n) -> counts.computeIfAbsent(c, k -> new LongAdder()).add(n.sum()));
        other.examples.forEach(examples::putIfAbsent);
    }

    /** The {@code n} largest classes, largest first (ties by name). */
    public List<Entry> top(int n) {
        final List<Entry> all = new ArrayList<>();
        counts.forEach((c, count) -> all.add(new Entry(c, count.sum(), examples.getOrDefault(c, ""))));
        all.sort(Comparator.comparingLong(Entry::count).reversed().thenComparing(Entry::errorClass));
        return all.subList(0, Math.min(n, all.size()));
    }

    /** The {@code n} largest classes as console lines: class, count, one example message. */
    public List<String> lines(int n) {
        return top(n).stream().map(e -> String.format(Locale.ROOT, "  %-12s %6d  e.g. %s", e.errorClass(), e.count(),
                e.example())).toList();
    }
}

package dev.goodput.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** RFC 4180 CSV text, built row by row. */
final class Csv {

    private final StringBuilder sb = new StringBuilder();

    Csv(List<String> header) {
        row(new ArrayList<>(header));
    }

    Csv row(List<?> cells) {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(cell(cells.get(i)));
        }
        sb.append("\r\n");
        return this;
    }

    static String cell(Object v) {
        if (v == null) {
            return "";
        }
        final String s = v instanceof Double d ? (d.isNaN() ? "" : String.format(Locale.ROOT, "%.6f", d)) : v.toString();
        return s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")
                ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}

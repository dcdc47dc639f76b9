package dev.goodput.report;

import java.util.Locale;

/** How the report page shows numbers; the tests read the page with the same rules. */
public final class Fmt {

    private Fmt() {
    }

    /** Microseconds as milliseconds with three decimals: exact, nothing rounded away. */
    public static String ms(long us) {
        return us < 0 ? "n/a" : String.format(Locale.ROOT, "%.3f", us / 1000.0);
    }

    /** A rate or mean, two decimals. */
    public static String num(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
    }

    /** A fraction as a percentage with one decimal. */
    public static String pct(double fraction) {
        return Double.isNaN(fraction) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }

    /** US dollars, four decimals (cost per successful million tokens can be cents). */
    public static String usd(Double v) {
        return v == null || v.isNaN() ? "n/a" : String.format(Locale.ROOT, "$%.4f", v);
    }

    /** Text safe inside HTML. */
    public static String html(Object o) {
        if (o == null) {
            return "";
        }
        final String s = o.toString();
        final StringBuilder sb = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}

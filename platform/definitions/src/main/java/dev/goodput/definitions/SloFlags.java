package dev.goodput.definitions;

import java.util.List;
import java.util.Locale;

import dev.goodput.contract.Contract;

/**
 * Parses SLO objectives in the syntax of vLLM's {@code --goodput}: {@code ttft:200 tpot:50 e2el:5000},
 * milliseconds, bounds inclusive; any subset.
 */
public final class SloFlags {
    private SloFlags() {
    }

    public static Contract.Objectives parse(List<String> terms) {
        Double ttft = null;
        Double tpot = null;
        Double e2e = null;
        for (String term : terms) {
            final String[] kv = term.split(":", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("--goodput: '" + term + "' is not name:milliseconds (ttft:200 tpot:50 e2el:5000)");
            }
            final double ms;
            try {
                ms = Double.parseDouble(kv[1]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--goodput: '" + kv[1] + "' in '" + term + "' is not a number of milliseconds");
            }
            if (!(ms >= 0)) {
                throw new IllegalArgumentException("--goodput: '" + term + "' must be >= 0 milliseconds");
            }
            switch (kv[0].toLowerCase(Locale.ROOT)) {
                case "ttft" -> ttft = ms;
                case "tpot" -> tpot = ms;
                case "e2el", "e2e" -> e2e = ms;
                default -> throw new IllegalArgumentException("--goodput: unknown objective '" + kv[0]
                        + "' (use ttft, tpot, e2el)");
            }
        }
        return Contract.Objectives.ofMillis(ttft, tpot, e2e);
    }

    /** Objectives as {@code --goodput} takes them ({@code ttft:200 tpot:50 e2el:5000}, ms), or "none". */
    public static String text(Contract.Objectives o) {
        final StringBuilder b = new StringBuilder();
        o.ttftUs().ifPresent(v -> b.append(" ttft:").append(ms(v)));
        o.tpotUs().ifPresent(v -> b.append(" tpot:").append(ms(v)));
        o.e2eUs().ifPresent(v -> b.append(" e2el:").append(ms(v)));
        return b.length() == 0 ? "none" : b.substring(1);
    }

    private static String ms(long us) {
        return us % 1000 == 0 ? Long.toString(us / 1000) : String.format(Locale.ROOT, "%.3f", us / 1000.0)
                .replaceAll("0+$", "");
    }
}

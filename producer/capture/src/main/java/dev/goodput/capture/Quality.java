package dev.goodput.capture;

import java.io.IOException;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;

/**
 * The contract's quality metrics, scored per request from the answer text and the corpus's expected
 * answer. Scores are 0 or 1 for these metrics; a request passes when score >= the contract's floor.
 */
public final class Quality {
    private static final JsonFactory JSON = new JsonFactory();
    private static final Pattern SPACES = Pattern.compile("\\s+");

    private Quality() {
    }

    /** The score of {@code answer} under {@code metric} (exact_match, contains, regex, valid_json). */
    public static double score(String metric, String answer, String expected) {
        return switch (metric) {
            case "exact_match" -> normalize(answer).equals(normalize(expected)) ? 1.0 : 0.0;
            case "contains" -> normalize(answer).contains(normalize(expected)) ? 1.0 : 0.0;
            case "regex" -> regex(answer, expected);
            case "valid_json" -> validJson(answer) ? 1.0 : 0.0;
            default -> throw new IllegalArgumentException("unknown quality metric " + metric);
        };
    }

    public static boolean passes(double score, double floor) {
        return score >= floor;
    }

    /** Lower case, runs of white space as one space, trimmed, trailing sentence punctuation removed. */
    static String normalize(String s) {
        String t = SPACES.matcher(s.toLowerCase(Locale.ROOT)).replaceAll(" ").trim();
        while (!t.isEmpty() && ".!?,;:".indexOf(t.charAt(t.length() - 1)) >= 0) {
            t = t.substring(0, t.length() - 1).trim();
        }
        return t;
    }

    private static double regex(String answer, String expected) {
        try {
            return Pattern.compile(expected).matcher(answer).find() ? 1.0 : 0.0;
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("expected answer is not a valid regex: " + expected, e);
        }
    }

    private static boolean validJson(String answer) {
        final String t = answer.trim();
        if (t.isEmpty()) {
            return false;
        }
        try (JsonParser p = JSON.createParser(t)) {
            p.skipChildren();
            while (p.nextToken() != null) {
                p.skipChildren();
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}

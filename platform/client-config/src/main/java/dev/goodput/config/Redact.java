package dev.goodput.config;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Keeps credentials out of everything Goodput prints or stores: URLs lose their user info, and
 * text from outside (a server's error body, a command line) loses what looks like a key or token.
 * What is kept is said in the schema doc of {@code RequestEvent.error_message}.
 */
public final class Redact {
    public static final String MASK = "***";

    private static final Pattern URL_USERINFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/\\s@?#]+@");
    private static final Pattern BEARER = Pattern.compile("(?i)\\b(bearer|basic)(\\s+)[A-Za-z0-9._~+/=-]{6,}");
    private static final Pattern OPENAI_KEY = Pattern.compile("\\bsk-[A-Za-z0-9_-]{6,}");
    private static final Pattern KEY_VALUE = Pattern.compile(
            // the name, an optional (possibly backslash-escaped) quote, the separator, then the value
            "(?i)(\\b(?:api[-_]?key|x-api-key|authorization|password|passwd|secret|access[-_]?token|token)\\\\?\"?\\s*[:=]\\s*\\\\?\"?)"
                    + "(?!\\*\\*\\*)[^\"\\\\\\s,;}&]{4,}");
    private static final List<String> SECRET_HEADER_WORDS = List.of("authorization", "api-key", "apikey", "api_key", "token",
            "secret", "password", "cookie");

    private Redact() {
    }

    /** The URL without its user info ({@code http://user:pw@host} becomes {@code http://***@host}). */
    public static String url(String url) {
        return url == null ? null : URL_USERINFO.matcher(url).replaceAll("$1" + MASK + "@");
    }

    /** The URL with its user info removed altogether: the address to connect to, print and stamp. */
    /** The decoded user info of a URL ({@code user:secret}), or null when it has none or is not a URL. */
    public static String userInfo(String url) {
        try {
            final String raw = URI.create(url).getRawUserInfo();
            return raw == null ? null : URLDecoder.decode(raw, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The {@code Authorization} value of HTTP basic authentication with {@code user:secret}. */
    public static String basicAuthorization(String userInfo) {
        return "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    }

    public static String withoutUserInfo(String url) {
        return url == null ? null : URL_USERINFO.matcher(url).replaceAll("$1");
    }

    /**
     * Text from outside with every known secret and everything shaped like one masked: bearer and
     * basic credentials, OpenAI-style keys, {@code api_key=...}/{@code "password": "..."} pairs and
     * URL user info.
     */
    public static String text(String text, Collection<String> knownSecrets) {
        if (text == null) {
            return null;
        }
        String t = text;
        for (String s : knownSecrets) {
            if (s != null && s.length() >= 4) {
                t = t.replace(s, MASK);
            }
        }
        t = URL_USERINFO.matcher(t).replaceAll("$1" + MASK + "@");
        t = BEARER.matcher(t).replaceAll("$1$2" + MASK);
        t = OPENAI_KEY.matcher(t).replaceAll("sk-" + MASK);
        return KEY_VALUE.matcher(t).replaceAll("$1" + MASK);
    }

    /** Whether a request header's value is a credential by its name. */
    public static boolean secretHeader(String name) {
        final String n = name.toLowerCase(Locale.ROOT);
        return SECRET_HEADER_WORDS.stream().anyMatch(n::contains);
    }

    /**
     * A command line as it may be recorded: URLs lose their user info, {@code --header} values of
     * credential headers are masked, and the rest passes through {@link #text}.
     */
    public static List<String> args(List<String> args) {
        final List<String> out = new ArrayList<>(args.size());
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            final boolean headerValue = i > 0 && (args.get(i - 1).equals("--header") || args.get(i - 1).equals("-H"));
            final String attached = a.startsWith("--header=") ? "--header=" : a.startsWith("-H=") ? "-H="
                    : a.startsWith("-H") && a.length() > 2 ? "-H" : null;
            if (headerValue || attached != null) {
                final String prefix = headerValue ? "" : attached;
                final String h = a.substring(prefix.length());
                final int sep = headerSeparator(h);
                if (sep > 0 && secretHeader(h.substring(0, sep))) {
                    a = prefix + h.substring(0, sep + 1) + MASK;
                }
            }
            out.add(text(a, List.of()));
        }
        return out;
    }

    /**
     * Where a header given as {@code 'Name: value'} or {@code Name=value} splits: at whichever of ':'
     * and '=' comes first, since a name holds neither and a value may hold both; -1 for neither.
     */
    public static int headerSeparator(String header) {
        final int eq = header.indexOf('=');
        final int colon = header.indexOf(':');
        return eq < 0 ? colon : colon < 0 ? eq : Math.min(eq, colon);
    }
}

package dev.goodput.registry;

import java.util.Locale;
import java.util.Map;

import dev.goodput.config.Redact;

/**
 * Credentials for a secured Schema Registry, read from the client properties under Confluent's own
 * names, so a Confluent Cloud or secured-registry properties file works as it is:
 * <ul>
 *   <li>{@code basic.auth.credentials.source=USER_INFO} with {@code basic.auth.user.info=KEY:SECRET};</li>
 *   <li>{@code basic.auth.credentials.source=URL}: the user info of the registry URL;</li>
 *   <li>{@code bearer.auth.credentials.source=STATIC_TOKEN} with {@code bearer.auth.token}.</li>
 * </ul>
 * Each name is also read with Confluent's {@code schema.registry.} prefix. The value is held only
 * as the header it becomes, and {@link #toString()} never shows it.
 */
public final class RegistryAuth {

    public static final RegistryAuth NONE = new RegistryAuth(null, "none");

    private final String authorization;
    private final String kind;

    private RegistryAuth(String authorization, String kind) {
        this.authorization = authorization;
        this.kind = kind;
    }

    /** The {@code Authorization} header value, or null. */
    String header() {
        return authorization;
    }

    @Override
    public String toString() {
        return kind;
    }

    /** Basic authentication with {@code user:secret}. */
    public static RegistryAuth basic(String userInfo) {
        return new RegistryAuth(Redact.basicAuthorization(userInfo), "basic");
    }

    public static RegistryAuth bearer(String token) {
        return new RegistryAuth("Bearer " + token, "bearer");
    }

    /**
     * The credentials the properties name for a registry at {@code url}.
     *
     * @throws IllegalArgumentException naming the property and the fix, for a source without its value
     */
    public static RegistryAuth from(Map<String, String> props, String url) {
        final String basicSource = get(props, "basic.auth.credentials.source");
        final String bearerSource = get(props, "bearer.auth.credentials.source");
        if (basicSource != null && bearerSource != null) {
            throw new IllegalArgumentException("basic.auth.credentials.source and bearer.auth.credentials.source are"
                    + " both set: keep one");
        }
        if (bearerSource != null) {
            if (!"STATIC_TOKEN".equals(bearerSource.toUpperCase(Locale.ROOT))) {
                throw new IllegalArgumentException("bearer.auth.credentials.source=" + bearerSource
                        + " is not supported here: use STATIC_TOKEN with bearer.auth.token");
            }
            final String token = get(props, "bearer.auth.token");
            if (token == null || token.isBlank()) {
                throw new IllegalArgumentException("bearer.auth.credentials.source=STATIC_TOKEN needs bearer.auth.token");
            }
            return bearer(token.strip());
        }
        if (basicSource == null) {
            // Confluent's default source is URL: credentials in the URL are used when present
            final String info = Redact.userInfo(url);
            return info == null ? NONE : basic(info);
        }
        switch (basicSource.toUpperCase(Locale.ROOT)) {
            case "USER_INFO" -> {
                final String info = get(props, "basic.auth.user.info");
                if (info == null || !info.contains(":")) {
                    throw new IllegalArgumentException("basic.auth.credentials.source=USER_INFO needs basic.auth.user.info"
                            + " as KEY:SECRET");
                }
                return basic(info.strip());
            }
            case "URL" -> {
                final String info = Redact.userInfo(url);
                if (info == null) {
                    throw new IllegalArgumentException("basic.auth.credentials.source=URL needs the credentials in the"
                            + " registry URL (http://KEY:SECRET@host:8081)");
                }
                return basic(info);
            }
            default -> throw new IllegalArgumentException("basic.auth.credentials.source=" + basicSource
                    + " is not supported here: use USER_INFO or URL");
        }
    }

    private static String get(Map<String, String> props, String name) {
        final String v = props.get(name);
        return v != null ? v : props.get("schema.registry." + name);
    }
}

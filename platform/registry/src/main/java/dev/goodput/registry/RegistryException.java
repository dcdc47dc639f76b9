package dev.goodput.registry;

/**
 * An error answered by a Confluent-compatible schema registry, or the registry being unreachable.
 * Carries the HTTP status and the registry's own error code (40401, 40403, 409, 42201, 50001, ...)
 * so callers can tell "not found" from "incompatible" from "down" without parsing text.
 */
public class RegistryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int httpStatus;
    private final int errorCode;

    public RegistryException(int httpStatus, int errorCode, String message) {
        super(message);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    public RegistryException(int httpStatus, int errorCode, String message, Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    public int httpStatus() {
        return httpStatus;
    }

    public int errorCode() {
        return errorCode;
    }

    /** Maps a registry error answer to the most specific exception type. */
    public static RegistryException of(int httpStatus, int errorCode, String message) {
        final String text = message + " (HTTP " + httpStatus + ", error code " + errorCode + ")";
        if (errorCode == ErrorCode.SUBJECT_NOT_FOUND || errorCode == ErrorCode.VERSION_NOT_FOUND
                || errorCode == ErrorCode.SCHEMA_NOT_FOUND) {
            return new NotFound(httpStatus, errorCode, text);
        }
        if (httpStatus == 409) {
            return new Incompatible(httpStatus, errorCode, text);
        }
        if (httpStatus == 422) {
            return new Invalid(httpStatus, errorCode, text);
        }
        if (httpStatus >= 500) {
            return new ServerError(httpStatus, errorCode, text);
        }
        return new RegistryException(httpStatus, errorCode, text);
    }

    /** 40401 subject, 40402 version or 40403 schema not found. */
    public static final class NotFound extends RegistryException {
        private static final long serialVersionUID = 1L;

        public NotFound(int httpStatus, int errorCode, String message) {
            super(httpStatus, errorCode, message);
        }
    }

    /** 409: the schema is incompatible with an earlier version under the subject's compatibility level. */
    public static final class Incompatible extends RegistryException {
        private static final long serialVersionUID = 1L;

        public Incompatible(int httpStatus, int errorCode, String message) {
            super(httpStatus, errorCode, message);
        }
    }

    /** 422xx: invalid schema, version or compatibility level. */
    public static final class Invalid extends RegistryException {
        private static final long serialVersionUID = 1L;

        public Invalid(int httpStatus, int errorCode, String message) {
            super(httpStatus, errorCode, message);
        }
    }

    /** 5xx, after the client's retries. */
    public static final class ServerError extends RegistryException {
        private static final long serialVersionUID = 1L;

        public ServerError(int httpStatus, int errorCode, String message) {
            super(httpStatus, errorCode, message);
        }
    }

    /** No HTTP answer at all: refused, reset, timed out. */
    public static final class Unreachable extends RegistryException {
        private static final long serialVersionUID = 1L;

        public Unreachable(String message, Throwable cause) {
            super(0, 0, message, cause);
        }
    }
}

package dev.goodput.registry;

/** Error codes of Confluent's Schema Registry REST API, as its documentation lists them. */
public final class ErrorCode {
    public static final int SUBJECT_NOT_FOUND = 40401;
    public static final int VERSION_NOT_FOUND = 40402;
    public static final int SCHEMA_NOT_FOUND = 40403;
    public static final int SUBJECT_COMPATIBILITY_NOT_CONFIGURED = 40408;
    public static final int INCOMPATIBLE_SCHEMA = 409;
    public static final int INVALID_SCHEMA = 42201;
    public static final int INVALID_VERSION = 42202;
    public static final int INVALID_COMPATIBILITY_LEVEL = 42203;
    public static final int BACKEND_STORE_ERROR = 50001;
    public static final int NOT_FOUND = 404;

    private ErrorCode() {
    }
}

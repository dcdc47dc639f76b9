package dev.goodput.runner;

/** A one-line reason the run could not start (an address that does not answer, a port in use). */
public final class StartupException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    public StartupException(String message, int exitCode, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}

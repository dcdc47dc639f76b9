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

    /** The innermost cause's message: what actually went wrong. */
    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    /**
     * Refuses (exit 2) a command that needs the local broker where the installation leaves it out:
     * the production image carries no broker and no Scala, and runs against a cluster.
     */
    static void requireLocalBroker(String what) {
        try {
            // by name: naming the class in code would load it, which is what cannot be done here
            Class.forName("dev.goodput.kafka.EmbeddedKafka", false, StartupException.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new StartupException(what + " needs the local broker, which this installation leaves out (the image "
                    + "runs against a cluster): give --bootstrap-server, or run it from a clone with ./goodput",
                    Main.EXIT_REFUSED, null);
        }
    }
}

package dev.goodput.config;

import java.util.List;

/**
 * A file or setting that cannot be used, found at start: names what kind of file it is, which
 * file, and each problem with its field path and what is allowed. Commands exit 2 on it.
 */
public class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The exit code of a CLI refused for a bad contract or config. */
    public static final int EXIT_CODE = 2;

    private final List<String> problems;

    /**
     * @param kind   what the source is: "contract", "price file", "load matrix", "client properties"
     * @param source the file (or the flag) the problems are in
     */
    public ConfigException(String kind, String source, List<String> problems) {
        super("invalid " + kind + " " + source + ":\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}

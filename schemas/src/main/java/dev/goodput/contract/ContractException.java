package dev.goodput.contract;

import java.util.List;

/** A contract file that cannot be used; each problem names the field path and what is expected. */
public final class ContractException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The exit code of a CLI refused for a bad contract or config. */
    public static final int EXIT_CODE = 2;

    private final List<String> problems;

    public ContractException(String source, List<String> problems) {
        super("invalid contract " + source + ":\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}

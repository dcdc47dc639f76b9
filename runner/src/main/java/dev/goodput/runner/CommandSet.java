package dev.goodput.runner;

import java.util.List;

/**
 * Subcommands a module adds to {@code goodput} when it is on the class path (found with
 * {@link java.util.ServiceLoader}): the benchmarks live in their own module and are not in the
 * production image, yet {@code ./goodput bench-streams} runs them.
 */
public interface CommandSet {
    /** picocli command classes, each with its own {@code @Command(name = ...)}. */
    List<Class<?>> commands();
}

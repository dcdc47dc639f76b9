package dev.goodput.streams;

import picocli.CommandLine;

/** Runs {@link StreamsCommand} in a child JVM, so a test can kill it like a crashed instance. */
public final class ChildStreams {
    private ChildStreams() {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new StreamsCommand()).execute(args));
    }
}

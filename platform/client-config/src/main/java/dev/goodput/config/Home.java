package dev.goodput.config;

import java.nio.file.Path;

/**
 * Where the shipped configuration lives. {@code ./goodput} runs in the user's working directory, so
 * that every relative path given on the command line means what it means in the user's shell; the
 * defaults (contract, load matrix, prices, corpus) are the checkout's, found through the
 * {@code goodput.home} property the script sets. Without it (tests, the container image) they are
 * relative to the working directory, as before.
 */
public final class Home {

    /** The config folder for picocli defaults: {@code defaultValue = Home.CONFIG + "contract.yaml"}. */
    public static final String CONFIG = "${sys:goodput.home:-.}/config/";

    private Home() {
    }

    /** A shipped config file, for defaults set in code. */
    public static Path config(String name) {
        return Path.of(System.getProperty("goodput.home", "."), "config", name);
    }
}

package dev.goodput.capture.tokens;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The contract's {@code tokenizer.name}, resolved to what counts with it. */
public final class TokenCounters {

    /** One token per white-space separated word: the simulator's. */
    public static final String WHITESPACE = "goodput/whitespace";
    /** The target's own {@code /tokenize}. */
    public static final String SERVER = "server";

    private TokenCounters() {
    }

    /**
     * @param name       the contract's tokenizer.name: {@code goodput/whitespace}, {@code server}, or the path of a
     *                   Hugging Face {@code tokenizer.json} (relative to the contract's folder)
     * @param contractDir the folder relative paths are read from
     * @param targetRoot the target's address without its API path ({@code http://host:port}), for {@code server}
     * @throws IllegalArgumentException naming the field and the fix: an unknown name, a missing or unreadable file, a
     *                                  target without {@code /tokenize}
     */
    public static TokenCounter forContract(String name, Path contractDir, URI targetRoot, String model,
                                           Map<String, String> headers) {
        if (WHITESPACE.equals(name)) {
            return TokenCounter.WHITESPACE;
        }
        if (SERVER.equals(name)) {
            final ServerTokenizer server = new ServerTokenizer(targetRoot, model, headers);
            try {
                server.count("hello", false);
            } catch (ServerTokenizer.TokenizerUnavailable e) {
                throw new IllegalArgumentException("tokenizer.name: server, but " + e.getMessage()
                        + " (use a tokenizer.json file's path, or a target with /tokenize: llama.cpp, vLLM, SGLang)");
            }
            return server;
        }
        if (name.endsWith(".json")) {
            final Path file = contractDir.resolve(name);
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException("tokenizer.name: " + file + " cannot be read (give the path of the"
                        + " model's Hugging Face tokenizer.json, relative to the contract)");
            }
            try {
                return new HfTokenizerFile(file);
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("tokenizer.name: " + file + " is not a Hugging Face tokenizer.json: "
                        + e.getMessage());
            }
        }
        throw new IllegalArgumentException("tokenizer.name: '" + name + "' is not one Goodput can count with (use "
                + WHITESPACE + " for the simulator, " + SERVER + " for the target's /tokenize, or the path of the model's"
                + " tokenizer.json)");
    }
}

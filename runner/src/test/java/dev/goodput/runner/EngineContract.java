package dev.goodput.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.goodput.capture.LlamaServer;

/** The engine's contract (engine/contract.yaml) written where a test runs: its model alias and an absolute corpus path. */
final class EngineContract {
    private EngineContract() {
    }

    static Path write(Path dir) throws IOException {
        final Path contract = dir.resolve("contract.yaml");
        Files.writeString(contract, Files.readString(Path.of("../engine/contract.yaml"))
                .replace("name: tiny-llama2 ", "name: " + LlamaServer.MODEL + " ")
                .replace("../config/corpus/prompts.jsonl", Path.of("../config/corpus/prompts.jsonl").toAbsolutePath().toString()));
        return contract;
    }
}

package dev.goodput.capture.tokens;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;

/**
 * A Hugging Face {@code tokenizer.json}, run by the Rust tokenizers library through DJL: the same
 * code that Hugging Face's fast tokenizers (and so vLLM, AIPerf and GuideLLM) count with.
 */
final class HfTokenizerFile implements TokenCounter {

    private final Path file;
    private final HuggingFaceTokenizer tokenizer;

    HfTokenizerFile(Path file) throws IOException {
        this.file = file;
        // no truncation or padding: a prompt is counted whole
        this.tokenizer = HuggingFaceTokenizer.newInstance(file, Map.of("truncation", "false", "padding", "false",
                "maxLength", "-1"));
    }

    @Override
    public String name() {
        return file.getFileName().toString();
    }

    @Override
    public int count(String text, boolean special) {
        return tokenizer.encode(text, special, false).getIds().length;
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}

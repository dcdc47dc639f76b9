package dev.goodput.capture.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.Prompts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Prompts sized in a tokenizer whose words cost different numbers of tokens, and the tokenizer names a contract may give. */
class PromptSizerTest {

    /**
     * A byte-pair tokenizer.json of letters only, where a few filler words have merges that make them
     * one token and the rest cost a token per letter; a BOS token is added to a prompt with special tokens.
     */
    static Path letterTokenizer(Path dir) throws IOException {
        final ObjectMapper json = new ObjectMapper();
        final ObjectNode t = json.createObjectNode().put("version", "1.0");
        t.putNull("truncation");
        t.putNull("padding");
        final ArrayNode added = t.putArray("added_tokens");
        added.addObject().put("id", 0).put("content", "[UNK]").put("single_word", false).put("lstrip", false)
                .put("rstrip", false).put("normalized", false).put("special", true);
        added.addObject().put("id", 1).put("content", "<s>").put("single_word", false).put("lstrip", false)
                .put("rstrip", false).put("normalized", false).put("special", true);
        t.putNull("normalizer");
        t.putObject("pre_tokenizer").put("type", "Whitespace");
        final ObjectNode post = t.putObject("post_processor").put("type", "TemplateProcessing");
        post.putArray("single").addObject().putObject("SpecialToken").put("id", "<s>").put("type_id", 0);
        ((ArrayNode) post.get("single")).addObject().putObject("Sequence").put("id", "A").put("type_id", 0);
        post.putArray("pair").addObject().putObject("Sequence").put("id", "A").put("type_id", 0);
        post.putObject("special_tokens").putObject("<s>").put("id", "<s>").putArray("ids").add(1);
        ((ObjectNode) post.get("special_tokens").get("<s>")).putArray("tokens").add("<s>");
        t.putNull("decoder");
        final ObjectNode model = t.putObject("model").put("type", "BPE").put("unk_token", "[UNK]").put("fuse_unk", false)
                .put("byte_fallback", false);
        model.putNull("dropout");
        final ObjectNode vocab = model.putObject("vocab");
        vocab.put("[UNK]", 0).put("<s>", 1);
        int id = 2;
        for (char c = 'a'; c <= 'z'; c++) {
            vocab.put(String.valueOf(c), id++);
        }
        final ArrayNode merges = model.putArray("merges");
        for (String word : new String[] {"alpha", "golf", "kilo"}) {
            String left = word.substring(0, 1);
            for (int i = 1; i < word.length(); i++) {
                final String right = word.substring(i, i + 1);
                merges.addArray().add(left).add(right);
                left = left + right;
                if (!vocab.has(left)) {
                    vocab.put(left, id++);
                }
            }
        }
        final Path file = dir.resolve("letters-tokenizer.json");
        json.writeValue(file.toFile(), t);
        return file;
    }

    @Test
    void promptsHaveTheirLengthInATokenizerWhoseWordsCostDifferently(@TempDir Path dir) throws IOException {
        letterTokenizer(dir);
        try (TokenCounter counter = TokenCounters.forContract("letters-tokenizer.json", dir, null, "m", Map.of())) {
            assertThat(counter.count("alpha bravo", false)).isEqualTo(1 + 5);
            assertThat(counter.count("alpha bravo", true)).isEqualTo(1 + 1 + 5);
            for (boolean special : new boolean[] {false, true}) {
                final PromptSizer sizer = special ? PromptSizer.forCompletions(counter) : PromptSizer.forChat(counter);
                final List<PromptSizer.Sized> samples = new ArrayList<>();
                for (int length : new int[] {150, 151, 257, 1024}) {
                    for (long seed = 0; seed < 5; seed++) {
                        final PromptSizer.Sized s = sizer.build(HttpFixtures.CORPUS.get(seed).prompt(), length, seed);
                        assertThat(s.tokens()).isEqualTo(length);
                        assertThat(counter.count(s.text(), special)).as(s.text()).isEqualTo(length);
                        samples.add(s);
                    }
                }
                assertThat(sizer.deviation(samples)).isZero();
            }
        }
    }

    /** Blocks of a trace's shared prefixes have their token length too, and two prompts with the same ids share them. */
    @Test
    void sharedBlocksAreSharedWordForWord(@TempDir Path dir) throws IOException {
        letterTokenizer(dir);
        try (TokenCounter counter = TokenCounters.forContract("letters-tokenizer.json", dir, null, "m", Map.of())) {
            final PromptSizer sizer = PromptSizer.forCompletions(counter);
            final PromptSizer.Sized a = sizer.build("Why?", 300, new long[] {11, 12}, 64, 1);
            final PromptSizer.Sized b = sizer.build("How?", 300, new long[] {11, 12}, 64, 2);
            assertThat(counter.count(a.text(), true)).isEqualTo(300);
            final int common = commonPrefix(a.text(), b.text());
            assertThat(counter.count(a.text().substring(0, common), true)).isGreaterThanOrEqualTo(127);
        }
    }

    private static int commonPrefix(String a, String b) {
        int i = 0;
        while (i < Math.min(a.length(), b.length()) && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return i;
    }

    /** The simulator's tokenizer sizes exactly as before: one token a word. */
    @Test
    void whitespaceSizingIsUnchanged() {
        final String p = Prompts.build("What is the capital of France?", 64, 5L);
        assertThat(Prompts.countTokens(p)).isEqualTo(64);
        assertThat(PromptSizer.WHITESPACE.build("What is the capital of France?", 64, 5L))
                .isEqualTo(new PromptSizer.Sized(p, 64));
    }

    @Test
    void aTokenizerThatCannotBeUsedIsRefusedWithTheFieldAndTheFix(@TempDir Path dir) throws IOException {
        assertThatThrownBy(() -> TokenCounters.forContract("meta-llama/Llama-2-7b-hf", dir, null, "m", Map.of()))
                .hasMessageStartingWith("tokenizer.name: 'meta-llama/Llama-2-7b-hf' is not one Goodput can count with")
                .hasMessageContaining("server").hasMessageContaining("tokenizer.json");
        assertThatThrownBy(() -> TokenCounters.forContract("missing/tokenizer.json", dir, null, "m", Map.of()))
                .hasMessageStartingWith("tokenizer.name: ").hasMessageContaining("cannot be read");
        Files.writeString(dir.resolve("bad.json"), "{\"not\": \"a tokenizer\"}");
        assertThatThrownBy(() -> TokenCounters.forContract("bad.json", dir, null, "m", Map.of()))
                .hasMessageContaining("is not a Hugging Face tokenizer.json");
        // a target without /tokenize
        final HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/", ex -> {
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        s.start();
        try {
            final URI root = URI.create("http://127.0.0.1:" + s.getAddress().getPort() + "/");
            assertThatThrownBy(() -> TokenCounters.forContract("server", dir, root, "m", Map.of()))
                    .hasMessageStartingWith("tokenizer.name: server, but the target's /tokenize at")
                    .hasMessageContaining("HTTP 404");
        } finally {
            s.stop(0);
        }
    }

    /** Once its questions are measured, building prompts asks the tokenizer nothing (the dispatcher's path). */
    @Test
    void measuredQuestionsCostNoTokenizerCallWhenPromptsAreBuilt(@TempDir Path dir) throws IOException {
        letterTokenizer(dir);
        try (TokenCounter letters = TokenCounters.forContract("letters-tokenizer.json", dir, null, "m", Map.of())) {
            final int[] calls = {0};
            final TokenCounter counting = new TokenCounter() {
                @Override
                public String name() {
                    return letters.name();
                }

                @Override
                public int count(String text, boolean special) {
                    calls[0]++;
                    return letters.count(text, special);
                }
            };
            final PromptSizer sizer = PromptSizer.forCompletions(counting);
            HttpFixtures.CORPUS.entries().forEach(e -> sizer.measure(e.prompt()));
            final int before = calls[0];
            for (long i = 0; i < 100; i++) {
                sizer.build(HttpFixtures.CORPUS.get(i).prompt(), 256, i);
            }
            assertThat(calls[0]).isEqualTo(before);
        }
    }
}

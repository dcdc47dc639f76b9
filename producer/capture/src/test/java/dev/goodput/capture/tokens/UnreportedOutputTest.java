package dev.goodput.capture.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.TokenCountSource;
import dev.goodput.capture.CollectingSink;
import dev.goodput.capture.HttpFixtures;
import dev.goodput.capture.RequestExecution;
import dev.goodput.capture.StreamingClient;
import dev.goodput.loop.MicroClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A server that reports no usage: the contract's tokenizer counts the streamed text, not the chunks. */
class UnreportedOutputTest {

    private static RequestEvent run(String baseUrl, TokenCounter counter) throws Exception {
        try (StreamingClient client = new StreamingClient(4)) {
            final CompletableFuture<RequestEvent> done = new CompletableFuture<>();
            new RequestExecution(HttpFixtures.spec("u-1", 8, MicroClock.system().nowMicros()), HttpFixtures.RUN,
                    HttpFixtures.target(baseUrl), MicroClock.system(), new CollectingSink(), done::complete)
                    .countingWith(counter).start(client);
            return done.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void theTokenizerCountsWhatWasStreamed(@TempDir Path dir) throws Exception {
        PromptSizerTest.letterTokenizer(dir);
        // two chunks, reasoning then answer: "kilo" is one token, "bravo" five letters
        final HttpServer s = HttpFixtures.scripted(List.of("data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"kilo\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"content\":\" bravo\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", "data: [DONE]\n\n"), false);
        try (TokenCounter letters = TokenCounters.forContract("letters-tokenizer.json", dir, null, "m", Map.of())) {
            final RequestEvent e = run(HttpFixtures.baseUrl(s), letters);
            assertThat(e.getContentChunks()).isEqualTo(2);
            assertThat(e.getOutputTokens()).isEqualTo(letters.count("kilo bravo", false)).isEqualTo(6);
            assertThat(e.getOutputTokensSource()).isEqualTo(TokenCountSource.TOKENIZER);
            // the simulator's tokenizer keeps counting chunks
            final RequestEvent w = run(HttpFixtures.baseUrl(s), TokenCounter.WHITESPACE);
            assertThat(w.getOutputTokens()).isEqualTo(2);
            assertThat(w.getOutputTokensSource()).isEqualTo(TokenCountSource.CHUNK_COUNT);
        } finally {
            s.stop(0);
        }
    }
}

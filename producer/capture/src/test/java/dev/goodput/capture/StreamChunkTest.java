package dev.goodput.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class StreamChunkTest {

    private final StreamChunk c = new StreamChunk();

    private void parse(String json) throws IOException {
        final byte[] b = json.getBytes(StandardCharsets.UTF_8);
        c.parse(b, b.length);
    }

    @Test
    void roleOnlyAndEmptyDeltasAreNotContent() throws IOException {
        parse("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}");
        assertThat(c.kind()).isEqualTo(StreamChunk.Kind.NONE);
        parse("{\"choices\":[{\"delta\":{}}]}");
        assertThat(c.kind()).isEqualTo(StreamChunk.Kind.NONE);
        parse("{\"choices\":[{\"delta\":{\"content\":null}}]}");
        assertThat(c.kind()).isEqualTo(StreamChunk.Kind.NONE);
        assertThat(c.hasChoice()).as("vLLM's bench serve starts TTFT at such a chunk").isTrue();
    }

    @Test
    void aUsageOnlyEventCarriesNoChoice() throws IOException {
        parse("{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":7}}");
        assertThat(c.hasChoice()).isFalse();
        assertThat(c.usageCompletionTokens()).isEqualTo(7);
        parse("{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}");
        assertThat(c.hasChoice()).isTrue();
    }

    @Test
    void kindsOfContent() throws IOException {
        parse("{\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}");
        assertThat(c.kind()).isEqualTo(StreamChunk.Kind.ANSWER);
        assertThat(c.answerText().toString()).isEqualTo("Hi");
        parse("{\"choices\":[{\"delta\":{\"reasoning_content\":\"hmm\"}}]}");
        assertThat(c.kind()).isEqualTo(StreamChunk.Kind.REASONING);
        parse("{\"choices\":[{\"delta\":{\"reasoning\":\"hmm\"}}]}");
        assertThat(c.kind()).isEqualTo(StreamChunk.Kind.REASONING);
        parse("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\"}}]}}]}");
        assertThat(c.kind()).isEqualTo(StreamChunk.Kind.TOOL_CALL);
        parse("{\"choices\":[{\"text\":\" world\",\"finish_reason\":null}]}");
        assertThat(c.kind()).isEqualTo(StreamChunk.Kind.ANSWER);
    }

    @Test
    void usageFinishAndErrors() throws IOException {
        parse("{\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":34,\"total_tokens\":46}}");
        assertThat(c.kind()).isEqualTo(StreamChunk.Kind.NONE);
        assertThat(c.usageCompletionTokens()).isEqualTo(34);
        assertThat(c.usagePromptTokens()).isEqualTo(12);
        parse("{\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}");
        assertThat(c.finishReason()).isEqualTo("length");
        assertThat(c.usageCompletionTokens()).isEqualTo(-1);
        parse("{\"error\":{\"message\":\"boom\",\"code\":500}}");
        assertThat(c.error()).isEqualTo("boom");
    }

    @Test
    void cachedPromptTokensComeFromThePromptTokensDetails() throws IOException {
        // vLLM's and llama.cpp's shape: the cached share of the prompt under usage.prompt_tokens_details
        parse("{\"choices\":[],\"usage\":{\"prompt_tokens\":1093,\"completion_tokens\":4,"
                + "\"prompt_tokens_details\":{\"audio_tokens\":0,\"cached_tokens\":1091}}}");
        assertThat(c.usagePromptTokens()).isEqualTo(1093);
        assertThat(c.usageCachedTokens()).isEqualTo(1091);
        assertThat(c.usageCompletionTokens()).isEqualTo(4);
        // a usage report without details says nothing of the cache; nor does a null one
        parse("{\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,\"prompt_tokens_details\":null}}");
        assertThat(c.usageCachedTokens()).isEqualTo(-1);
        assertThat(c.usageCompletionTokens()).isEqualTo(3);
    }

    @Test
    void malformedJsonIsAnError() {
        assertThatThrownBy(() -> parse("{\"choices\":[{\"delta\":")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> parse("not json")).isInstanceOf(IOException.class);
    }

    /** llama.cpp's final chunk: its per-request timings, its build, and an in-stream error's type. */
    @Test
    void llamaCppTimingsFingerprintAndErrorType() throws IOException {
        parse("{\"choices\":[],\"system_fingerprint\":\"b1-80fb11a\",\"usage\":{\"completion_tokens\":4,\"prompt_tokens\":29},"
                + "\"timings\":{\"cache_n\":3,\"prompt_n\":26,\"prompt_ms\":39.077,\"prompt_per_token_ms\":1.5,"
                + "\"predicted_n\":4,\"predicted_ms\":18.177,\"predicted_per_token_ms\":4.54}}");
        assertThat(c.timings()).containsExactly(26, 39.077, 4, 18.177, 3);
        assertThat(c.fingerprint()).isEqualTo("b1-80fb11a");
        parse("{\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"system_fingerprint\":\"other\"}");
        assertThat(c.timings()).isNull();
        // the stream's first fingerprint is kept
        assertThat(c.fingerprint()).isEqualTo("b1-80fb11a");
        parse("{\"timings\":{\"prompt_n\":1}}");
        assertThat(c.timings()).as("timings without the four figures are not used").isNull();
        parse("{\"error\":{\"code\":500,\"message\":\"Failed to parse input\",\"type\":\"server_error\"}}");
        assertThat(c.error()).isEqualTo("Failed to parse input");
        assertThat(c.errorType()).isEqualTo("server_error");
    }
}

package dev.goodput.producer.client;

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
    void malformedJsonIsAnError() {
        assertThatThrownBy(() -> parse("{\"choices\":[{\"delta\":")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> parse("not json")).isInstanceOf(IOException.class);
    }
}

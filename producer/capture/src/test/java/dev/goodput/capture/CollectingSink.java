package dev.goodput.capture;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.TokenEvent;

/** Keeps every event in memory, for tests. */
public final class CollectingSink implements EventSink {
    public final List<TokenEvent> tokens = new CopyOnWriteArrayList<>();
    public final List<RequestEvent> requests = new CopyOnWriteArrayList<>();

    @Override
    public void token(TokenEvent event) {
        tokens.add(event);
    }

    @Override
    public void request(RequestEvent event) {
        requests.add(event);
    }

    public List<TokenEvent> tokensOf(String requestId) {
        return tokens.stream().filter(t -> t.getRequestId().equals(requestId)).toList();
    }
}

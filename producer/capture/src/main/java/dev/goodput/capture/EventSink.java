package dev.goodput.capture;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.TokenEvent;

/** Where the generator's events go. Called from HTTP threads: must not block. */
public interface EventSink {
    void token(TokenEvent event);

    void request(RequestEvent event);
}

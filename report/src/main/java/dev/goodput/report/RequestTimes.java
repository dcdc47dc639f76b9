package dev.goodput.report;

import dev.goodput.avro.RequestEvent;
import dev.goodput.definitions.Conventions;
import dev.goodput.definitions.Micros;

/** A request event's times, as the conventions of Goodput and its peers read them. */
public final class RequestTimes {
    private RequestTimes() {
    }

    /** The times of a successful request (one with first and last chunk times). */
    public static Conventions.Times of(RequestEvent r) {
        return new Conventions.Times(Micros.of(r.getIntendedSendTimeUs()), Micros.of(r.getActualSendTimeUs()),
                Micros.of(r.getFirstChunkTimeUs()), Micros.of(r.getLastChunkTimeUs()),
                r.getFirstChoiceTimeUs() == null ? -1 : Micros.of(r.getFirstChoiceTimeUs()),
                r.getLastChoiceTimeUs() == null ? -1 : Micros.of(r.getLastChoiceTimeUs()), r.getOutputTokens());
    }
}

package dev.goodput.records;

import dev.goodput.avro.RequestEvent;
import dev.goodput.definitions.Definitions;
import dev.goodput.definitions.Micros;

/**
 * A request event's end of generation, read by {@link Definitions#generationEnd}: the streams-app's
 * verdicts, the generator's closing block, the report and the engine account all end E2E and the
 * decode span here, so a model that stops on its end-of-sequence token is timed the same everywhere.
 */
public final class Generation {
    private Generation() {
    }

    /** The end of generation of an event with a last content chunk (its finish, when recorded). */
    public static long endUs(RequestEvent r) {
        return Definitions.generationEnd(Micros.of(r.getLastChunkTimeUs()),
                r.getLastChoiceTimeUs() == null ? -1 : Micros.of(r.getLastChoiceTimeUs()));
    }
}

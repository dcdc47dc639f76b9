package dev.goodput.streams;

import dev.goodput.avro.RequestVerdict;

/** What the request assembler forwards; the topology routes each kind to its sink. */
sealed interface Out permits Out.Verdict, Out.ToMerger, Out.Dead {

    /** A per-request verdict, for llm.verdicts. */
    record Verdict(RequestVerdict value) implements Out {
    }

    /** An encoded {@link Sample}, for the window merger. */
    record ToMerger(byte[] value) implements Out {
    }

    /** The original bytes of a refused event, for the DLQ (reason in the record's headers). */
    record Dead(byte[] value) implements Out {
    }
}

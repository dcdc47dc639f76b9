package dev.goodput.streams;

import dev.goodput.avro.RequestVerdict;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * What the request assembler forwards. Each kind goes to its own child node of the topology, by
 * name ({@link #send}), rather than through a split that tests every kind and two nodes more: a
 * verdict (one per request) to its sink itself, the other kinds through one node that unwraps them.
 */
sealed interface Out permits Out.Verdict, Out.ToMerger, Out.Dead {

    /** The name of the topology node that takes this kind (a child of the assembler). */
    String node();

    /** A per-request verdict, for llm.verdicts: its node is the topic's sink, whose serializer unwraps it. */
    record Verdict(RequestVerdict value) implements Out {
        static final String NODE = "verdicts-sink";

        @Override
        public String node() {
            return NODE;
        }
    }

    /** An encoded {@link Sample}, for the window merger. */
    record ToMerger(byte[] value) implements Out {
        static final String NODE = "sample-values";

        @Override
        public String node() {
            return NODE;
        }
    }

    /** The original bytes of a refused event, for the DLQ (reason in the record's headers). */
    record Dead(byte[] value) implements Out {
        static final String NODE = "dead-values";

        @Override
        public String node() {
            return NODE;
        }
    }

    /** Forwards {@code r} to the node of its kind alone. */
    static void send(ProcessorContext<String, Out> context, Record<String, Out> r) {
        context.forward(r, r.value().node());
    }
}

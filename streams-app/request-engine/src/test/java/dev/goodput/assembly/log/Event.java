package dev.goodput.assembly.log;

import java.util.List;

/** One record of a partition's two raw topics, at its log time (ms, the broker's append time). */
public sealed interface Event {

    boolean tokenTopic();

    long logMs();

    /** A chunk of a request: a token event of one chunk. */
    record ChunkEvent(long logMs, String requestId, String contractId, String scenarioId, int index, long arrivalUs,
                      boolean warmup) implements Event {
        @Override
        public boolean tokenTopic() {
            return true;
        }
    }

    /**
     * A token event holding a run of chunks of one request (as the generator's and the proxy's sinks
     * gather them), logged at one time: its chunks carry the run's log time.
     */
    record Run(long logMs, List<ChunkEvent> chunks) implements Event {
        @Override
        public boolean tokenTopic() {
            return true;
        }
    }

    /** A request event, with the bytes it came in. */
    record RequestEvent(long logMs, TestRequest request, byte[] bytes) implements Event {
        public RequestEvent(long logMs, TestRequest request) {
            this(logMs, request, request.encode());
        }

        @Override
        public boolean tokenTopic() {
            return false;
        }
    }

    /** A tick or, with {@code endOfRun}, the end-of-run marker a generator writes last on each topic. */
    record Control(boolean tokenTopic, long logMs, boolean endOfRun) implements Event {
    }
}

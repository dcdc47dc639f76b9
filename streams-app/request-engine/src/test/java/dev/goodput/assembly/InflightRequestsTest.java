package dev.goodput.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;

import dev.goodput.assembly.time.LogClock;
import org.junit.jupiter.api.Test;

/**
 * In-flight requests are kept under slots a finished request frees for the next: the store holds as
 * many entries as requests were in flight at most, and a restart finds every request, its chunks and
 * its request event, and the free slots.
 */
class InflightRequestsTest {

    private static MemoryByteStore store() {
        return new MemoryByteStore();
    }

    private static RequestState state(String contract, long firstArrivalUs) {
        final RequestState s = new RequestState();
        s.contractId = contract;
        s.scenarioId = "s1";
        s.addChunk(0, firstArrivalUs, 7);
        return s;
    }

    private static InflightRequests over(MemoryByteStore inner) {
        final InflightRequests r = new InflightRequests(new LiveStore<>(inner, RequestState.CODEC));
        r.load(id -> false);
        return r;
    }

    @Test
    void finishedRequestsFreeTheirSlotsForTheNextAndARestartFindsEveryRequest() {
        final MemoryByteStore inner = store();
        final LiveStore<RequestState> live = new LiveStore<>(inner, RequestState.CODEC);
        final InflightRequests inflight = new InflightRequests(live);
        inflight.load(id -> false);
        for (int i = 0; i < 5; i++) {
            inflight.add("r" + i, state("c", 1_000 * i));
        }
        live.writeBack();
        inflight.forget("r1");
        inflight.forget("r3");
        inflight.forget("never-seen");
        live.writeBack();
        final RequestState waiting = state("c", 9_000);
        waiting.requestBytes = new byte[] {1, 2, 3};
        waiting.completionUs = 50_000;
        waiting.expectedChunks = 2;
        inflight.await("r5", waiting);
        inflight.add("r6", state("c", 10_000));
        inflight.add("r7", state("c", 11_000));
        live.writeBack();
        // eight requests started, six in flight at most: six slots, the two freed ones taken again
        assertThat(inner.size()).isEqualTo(6);
        assertThat(inflight.size()).isEqualTo(6);

        final InflightRequests restarted = over(inner);
        assertThat(restarted.size()).isEqualTo(6);
        assertThat(restarted.get("r1")).isNull();
        assertThat(restarted.get("r4").arrivals[0]).isEqualTo(4_000);
        assertThat(restarted.get("r5").requestBytes).containsExactly(1, 2, 3);
        assertThat(restarted.hold()).isEqualTo(0);
        // a restart goes on where the uninterrupted one would: the same due request, the same slots
        assertThat(restarted.due(new LogClock(10_000_000, 5_000_000, 100_000_000, 100_000_000),
                100_000_000)).extracting(Map.Entry::getKey).containsExactly("r5");
        for (String id : new String[] {"r0", "r2", "r4", "r5", "r6", "r7"}) {
            restarted.forget(id);
        }
        restarted.add("r8", state("c", 12_000));
        assertThat(restarted.size()).isEqualTo(1);
        assertThat(over(inner).size()).isEqualTo(6); // nothing written back yet
    }

    /** The chunks of a run ask with one key string; what they are told follows the request in and out of flight. */
    @Test
    void aRunsRepeatedLookupsFollowItsRequestInAndOutOfFlight() {
        final InflightRequests inflight = over(store());
        final String id = new String("r1"); // one string, as a run's key is for all its chunks
        assertThat(inflight.get(id)).isNull();
        final RequestState first = state("c", 1_000);
        inflight.add(id, first);
        assertThat(inflight.get(id)).isSameAs(first);
        assertThat(inflight.get(id)).isSameAs(first);
        inflight.forget(id);
        assertThat(inflight.get(id)).isNull();
        final RequestState second = state("c", 2_000);
        inflight.add(id, second);
        assertThat(inflight.get(id)).isSameAs(second);
        // another string with the same text finds the same request; a waiting request taken over too
        assertThat(inflight.get(new String("r1"))).isSameAs(second);
        inflight.forget("r1");
        final RequestState waiting = state("c", 3_000);
        waiting.requestBytes = new byte[] {1};
        inflight.await(id, waiting);
        assertThat(inflight.get(id)).isSameAs(waiting);
        assertThat(inflight.get("r2")).isNull();
        assertThat(inflight.get(id)).isSameAs(waiting);
    }

    /**
     * A finished request writes nothing: its slot keeps its last state, which a restart reads as free
     * while the id is among the finished ones. The slot is written free when the id leaves them first.
     */
    @Test
    void aFinishedRequestsSlotKeepsItsStateUntilTakenOrItsIdIsGone() {
        final MemoryByteStore inner = store();
        final long[] clocks = {5_000, 6_000};
        final LiveStore<RequestState> live = new LiveStore<>(inner, RequestState.codec(clocks));
        final InflightRequests inflight = new InflightRequests(live);
        inflight.load(id -> false);
        inflight.add("r1", state("c", 1_000));
        live.writeBack();
        inflight.finish("r1");
        assertThat(live.pending()).isFalse();
        assertThat(inflight.size()).isZero();
        assertThat(RequestState.CODEC.decode(inner.get("0")).id).isEqualTo("r1");
        // without its id among the finished ones, a restart would take it for a request in flight
        assertThat(over(inner).size()).isEqualTo(1);
        final InflightRequests restarted = new InflightRequests(new LiveStore<>(inner, RequestState.CODEC));
        restarted.load(Set.of("r1")::contains);
        assertThat(restarted.size()).isZero();
        assertThat(restarted.carriedClocks()).containsExactly(5_000, 6_000);

        // the next request takes the slot: the id going later writes nothing
        inflight.add("r2", state("c", 2_000));
        live.writeBack();
        inflight.finish("r2");
        inflight.gone("r1");
        assertThat(live.pending()).isFalse();
        // r2's id goes while its state is still in the slot: the slot is written free, with the clocks of then
        clocks[0] = 9_000;
        inflight.gone("r2");
        assertThat(live.pending()).isTrue();
        live.writeBack();
        assertThat(RequestState.CODEC.decode(inner.get("0")).isFree()).isTrue();
        final InflightRequests after = new InflightRequests(new LiveStore<>(inner, RequestState.CODEC));
        after.load(id -> false);
        assertThat(after.size()).isZero();
        assertThat(after.carriedClocks()).containsExactly(9_000, 6_000);

        // started and finished within one record: its state is never written, the slot is written free
        inflight.add("r3", state("c", 3_000));
        inflight.add("r4", state("c", 3_000));
        live.writeBack();
        inflight.finish("r3");
        inflight.add("r5", state("c", 4_000));
        inflight.finish("r5");
        live.writeBack();
        assertThat(RequestState.CODEC.decode(inner.get("0")).isFree()).isTrue();
        assertThat(over(inner).size()).isEqualTo(1);
        assertThat(over(inner).get("r4")).isNotNull();
    }
}

package dev.goodput.streams;

import dev.goodput.records.DoorChecks;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

class DoorChecksTest {

    private static final Instant SEND = SampleRecords.T0;

    private static RequestEvent.Builder ok() {
        return RequestEvent.newBuilder(SampleRecords.request()).setStatus(RequestStatus.OK).setIntendedSendTimeUs(SEND)
                .setFirstChunkTimeUs(SEND.plusMillis(100)).setLastChunkTimeUs(SEND.plusMillis(900))
                .setCompletionTimeUs(SEND.plusMillis(901)).setContentChunks(8);
    }

    private static String reason(RequestEvent r) {
        final DoorChecks.Problem p = DoorChecks.request(r, 100);
        return p == null ? null : p.reason();
    }

    @Test
    void theChunkBoundComesFromTheLargestOutputCap() {
        assertThat(DoorChecks.maxChunks(List.of(Fixture.CONTRACT))).isEqualTo(2 * Fixture.CONTRACT.outputCapTokens() + 16);
        assertThat(DoorChecks.chunkIndex(0, 10)).isNull();
        assertThat(DoorChecks.chunkIndex(9, 10)).isNull();
        assertThat(DoorChecks.chunkIndex(10, 10).reason()).isEqualTo("chunk_index_out_of_range");
        assertThat(DoorChecks.chunkIndex(-1, 10).reason()).isEqualTo("chunk_index_out_of_range");
    }

    @Test
    void anEventAheadOfItsLogTimeBeyondTheBoundIsFromTheFuture() {
        final long logMs = 1_700_000_000_000L;
        assertThat(DoorChecks.future(logMs * 1_000 + DoorChecks.MAX_FUTURE_SKEW_US, logMs)).isNull();
        assertThat(DoorChecks.future(logMs * 1_000 + DoorChecks.MAX_FUTURE_SKEW_US + 1, logMs).reason()).isEqualTo("from_the_future");
        // behind the log time is normal: events are published after they happen
        assertThat(DoorChecks.future(logMs * 1_000 - 3_600_000_000L, logMs)).isNull();
    }

    @Test
    void anEventOfAnotherContractIsRefusedByTheSameFunctionInTheAppAndTheReport() {
        final RequestEvent r = ok().build();
        assertThat(DoorChecks.request(r, 0, 100, java.util.Set.of(r.getContractId()))).isNull();
        final DoorChecks.Problem p = DoorChecks.request(r, 0, 100, java.util.Set.of("d".repeat(64)));
        assertThat(p.reason()).isEqualTo("unknown_contract");
        assertThat(p.message()).contains(r.getContractId());
        // the contract first: an event of another contract is refused as such, whatever else is wrong with it
        assertThat(DoorChecks.request(ok().setContentChunks(-1).build(), 0, 100, java.util.Set.of("d".repeat(64))).reason())
                .isEqualTo("unknown_contract");
    }

    @Test
    void impossibleTimesAndCountsAreNamed() {
        assertThat(reason(ok().build())).isNull();
        assertThat(reason(ok().setFirstChunkTimeUs(SEND.minusSeconds(3)).build())).isEqualTo("first_chunk_before_send");
        assertThat(reason(ok().setCompletionTimeUs(SEND.minusMillis(1)).build())).isEqualTo("completed_before_send");
        assertThat(reason(ok().setIntendedSendTimeUs(Instant.parse("1970-01-01T00:00:01Z")).build())).isEqualTo("duration_out_of_range");
        assertThat(reason(ok().setLastChunkTimeUs(SEND.plusMillis(50)).build())).isEqualTo("chunks_out_of_order");
        assertThat(reason(ok().setLastChunkTimeUs(SEND.plusMillis(950)).build())).isEqualTo("chunk_after_completion");
        assertThat(reason(ok().setLastChoiceTimeUs(SEND.plusMillis(901)).build())).isNull();
        assertThat(reason(ok().setLastChoiceTimeUs(SEND.plusMillis(950)).build())).isEqualTo("chunk_after_completion");
        assertThat(reason(ok().setContentChunks(101).build())).isEqualTo("content_chunks_out_of_range");
        assertThat(reason(ok().setContentChunks(-1).build())).isEqualTo("content_chunks_out_of_range");
        // a failed request has no chunk times to check
        assertThat(reason(ok().setStatus(RequestStatus.ERROR).setFirstChunkTimeUs(null).setLastChunkTimeUs(null)
                .setContentChunks(0).build())).isNull();
    }
}

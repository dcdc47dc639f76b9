package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.goodput.avro.RequestEvent;
import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.WindowStats;
import dev.goodput.testing.SampleRecords;
import org.junit.jupiter.api.Test;

/**
 * A generator killed mid-scenario leaves request events and no run summary: the scenario stays in
 * the report, marked incomplete, with its windows, instead of being dropped.
 */
class RunRecordsTest {

    private static RequestEvent request(String scenario, int i, RequestStatus status, boolean warmup) {
        final Instant send = SampleRecords.T0.plusSeconds(100 + i);
        return RequestEvent.newBuilder(SampleRecords.request()).setRunId("r").setScenarioId(scenario).setRequestId(scenario + i)
                .setStatus(status).setWarmup(warmup).setIntendedSendTimeUs(send).setCompletionTimeUs(send.plusMillis(500)).build();
    }

    @Test
    void aScenarioWithoutARunSummaryIsKeptAndMarkedIncomplete() {
        final RunSummary a = RunSummary.newBuilder(SampleRecords.runSummary()).setRunId("r").setScenarioId("a").build();
        final List<RequestEvent> requests = new ArrayList<>(List.of(request("a", 0, RequestStatus.OK, false)));
        requests.add(request("killed", 1, RequestStatus.OK, true));
        requests.add(request("killed", 2, RequestStatus.OK, false));
        requests.add(request("killed", 3, RequestStatus.ERROR, false));
        final Instant w0 = SampleRecords.T0.plusSeconds(100);
        final WindowStats killedWindow = WindowStats.newBuilder(SampleRecords.windowStats()).setContractId(a.getContractId())
                .setScenarioId("killed").setWindowStartUs(w0).setWindowEndUs(w0.plusSeconds(10)).setIsFinal(true).build();

        final RunRecords r = RunRecords.select("r", null, List.of(a), requests, List.of(), List.of(killedWindow), List.of(), List.of());

        assertThat(r.incompleteScenarios()).containsExactly("killed");
        final RunSummary made = r.runs().stream().filter(s -> s.getScenarioId().equals("killed")).findFirst().orElseThrow();
        assertThat(made.getRequests()).isEqualTo(3);
        assertThat(made.getWarmupRequests()).isEqualTo(1);
        assertThat(made.getRequestsOk()).isEqualTo(2);
        assertThat(made.getRequestsError()).isEqualTo(1);
        assertThat(made.getArrival()).isEqualTo(RunRecords.INCOMPLETE);
        assertThat(made.getWarmupEndUs()).isEqualTo(SampleRecords.T0.plusSeconds(102));
        assertThat(r.windows()).extracting(WindowStats::getScenarioId).contains("killed");
        assertThat(r.requests()).hasSize(4);
    }

    @Test
    void theRefusedRecordsOfTheRunsWindowsAreSummedByReasonAndSaidInTheHeadline() {
        final RunSummary a = RunSummary.newBuilder(SampleRecords.runSummary()).setRunId("r").setScenarioId("a").build();
        // the windows the run's two requests completed in (at 100.5 s and 110.5 s)
        final Instant w0 = SampleRecords.T0.plusSeconds(100);
        final List<WindowStats> windows = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            windows.add(WindowStats.newBuilder(SampleRecords.windowStats()).setContractId(a.getContractId()).setScenarioId("a")
                    .setWindowStartUs(w0.plusSeconds(10L * i)).setWindowEndUs(w0.plusSeconds(10L * i + 10)).setIsFinal(true)
                    .setRefusedEvents(i == 0 ? Map.of("late", 2L, "duplicate", 1L) : Map.of("late", 3L)).build());
        }
        final RunRecords r = RunRecords.select("r", null, List.of(a), List.of(request("a", 0, RequestStatus.OK, false),
                request("a", 10, RequestStatus.OK, false)), List.of(), windows, List.of(), List.of());
        assertThat(r.deadLetters()).containsExactlyInAnyOrderEntriesOf(Map.of("late", 5L, "duplicate", 1L));
        final StringBuilder said = new StringBuilder();
        HtmlPage.accounting(said, r);
        final String page = said.toString();
        assertThat(page).contains("6 records were refused to the DLQ during this run: duplicate 1, late 5");
        // the run's two accepted request events have no verdict here
        assertThat(page).contains("The run has 2 measured requests; the results hold 0 verdicts");
        // the generator counted 160 measured requests: the 158 whose events are not on the topic are said, not hidden
        assertThat(page).contains("The generators' run summaries count 160 measured requests; 2 request events of the run reached"
                + " the topic and passed the door checks");
    }

    @Test
    void aRunsWindowsAreThoseItsOwnRequestsCompletedInNotATimeRange() {
        // a run of one long request (intended at 100 s, done at 600 s, as a 500 s span) and, between, two windows of the
        // same contract and scenario from other runs: they are not this run's, though its time range covers them
        final RunSummary a = RunSummary.newBuilder(SampleRecords.runSummary()).setRunId("r").setScenarioId("a")
                .setStartedUs(SampleRecords.T0.plusSeconds(100)).setEndedUs(SampleRecords.T0.plusSeconds(600)).build();
        // a span: no chunk is known, so only its completion places it
        final RequestEvent longOne = RequestEvent.newBuilder(request("a", 0, RequestStatus.OK, false)).setContentChunks(0)
                .setFirstChunkTimeUs(SampleRecords.T0.plusSeconds(101)).setLastChunkTimeUs(SampleRecords.T0.plusSeconds(600))
                .setCompletionTimeUs(SampleRecords.T0.plusSeconds(600).plusMillis(500)).build();
        final List<WindowStats> windows = new ArrayList<>();
        for (long s : new long[] {200, 300, 600}) {
            windows.add(WindowStats.newBuilder(SampleRecords.windowStats()).setContractId(a.getContractId()).setScenarioId("a")
                    .setWindowStartUs(SampleRecords.T0.plusSeconds(s)).setWindowEndUs(SampleRecords.T0.plusSeconds(s + 10))
                    .setIsFinal(true).setRequestsTotal(s == 600 ? 3 : 10).build());
        }
        final dev.goodput.avro.RequestVerdict verdict = dev.goodput.avro.RequestVerdict.newBuilder(SampleRecords.verdict())
                .setRunId("r").setContractId(a.getContractId()).setScenarioId("a").setCompletionTimeUs(longOne.getCompletionTimeUs()).build();
        final RunRecords r = RunRecords.select("r", null, List.of(a), List.of(longOne), List.of(verdict), windows, List.of(), List.of());
        assertThat(r.windows()).extracting(w -> w.getWindowStartUs()).containsExactly(SampleRecords.T0.plusSeconds(600));
        // the window it completed in holds two requests of other runs as well: said, not hidden
        assertThat(r.foreignRequestsInWindows()).isEqualTo(2);
        // streamed, the same request's gaps are dated by its chunks, in every window from its first: those hold it too
        final RequestEvent streamed = RequestEvent.newBuilder(longOne).setContentChunks(5000).build();
        assertThat(RunRecords.select("r", null, List.of(a), List.of(streamed), List.of(verdict), windows, List.of(), List.of()).windows())
                .extracting(w -> w.getWindowStartUs()).containsExactly(SampleRecords.T0.plusSeconds(200), SampleRecords.T0.plusSeconds(300),
                        SampleRecords.T0.plusSeconds(600));
    }
}

package dev.goodput.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;

import dev.goodput.avro.RequestStatus;
import dev.goodput.avro.RequestVerdict;
import dev.goodput.avro.RunSummary;
import dev.goodput.avro.WindowStats;
import dev.goodput.definitions.Histograms;
import dev.goodput.records.LatencySummaries;
import dev.goodput.testing.SampleRecords;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The console block of a scenario takes its figures from the scenario's final windows. */
class ScenarioServingTest {

    private static RequestVerdict verdict(RequestStatus status, int promptTokens) {
        return RequestVerdict.newBuilder(SampleRecords.verdict()).setRunId("r").setScenarioId("a")
                .setRequestId("q" + promptTokens).setStatus(status).setPromptTokens(promptTokens).build();
    }

    @Test
    void theBlockCarriesTheWindowsCountsGoodFractionAndValidity() {
        final Histogram ttft = Histograms.request();
        ttft.recordValue(25_000);
        final RunSummary a = RunSummary.newBuilder(SampleRecords.runSummary()).setRunId("r").setScenarioId("a").build();
        final WindowStats w = WindowStats.newBuilder(SampleRecords.windowStats()).setContractId(a.getContractId())
                .setScenarioId("a").setWindowStartUs(a.getStartedUs()).setWindowEndUs(a.getStartedUs().plusSeconds(10))
                .setIsFinal(false).setTtft(LatencySummaries.of(ttft)).setTtfat(LatencySummaries.of(ttft))
                .setItl(LatencySummaries.of(Histograms.token())).setTpot(LatencySummaries.of(Histograms.token()))
                .setE2e(LatencySummaries.of(Histograms.request())).build();
        // prompt tokens of OK requests only: 100 + 34, not the failed request's 500
        final List<RequestVerdict> verdicts = List.of(verdict(RequestStatus.OK, 100), verdict(RequestStatus.OK, 34),
                verdict(RequestStatus.ERROR, 500));
        final RunRecords r = RunRecords.select("r", null, List.of(a), List.of(), verdicts, List.of(w), List.of(), List.of());
        final ScenarioSummary s = ScenarioSummary.of(r).get(0);
        final List<String> lines = s.serving().lines().stream().map(String::stripTrailing).toList();
        assertThat(lines).contains(
                String.format(Locale.ROOT, "%-40s %d", "Successful requests:", w.getRequestsOk()),
                String.format(Locale.ROOT, "%-40s %d", "Failed requests:", w.getRequestsTotal() - w.getRequestsOk()),
                String.format(Locale.ROOT, "%-40s %d", "Total input tokens:", 134),
                String.format(Locale.ROOT, "%-40s %d", "Total generated tokens:", w.getOutputTokensOk()),
                String.format(Locale.ROOT, "%-40s %.2f", "Good requests (%):",
                        100.0 * w.getGoodRequests() / w.getRequestsTotal()));
        assertThat(lines).contains("Median TTFT (ms):                        25.01", "Mean TPOT (ms):                          n/a");
        assertThat(lines).anyMatch(l -> l.startsWith("Validity:") && l.contains("windows not all final"));
        assertThat(lines).anyMatch(l -> l.startsWith("Cost per successful 1M tokens (USD):") && l.endsWith("not priced"));
    }
}

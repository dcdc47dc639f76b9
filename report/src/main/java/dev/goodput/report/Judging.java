package dev.goodput.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

import dev.goodput.avro.WindowStats;
import dev.goodput.contract.Contract;
import dev.goodput.definitions.Micros;
import dev.goodput.definitions.SloFlags;

/**
 * What judged a run's results, as its final windows recorded it: the latency objectives and the
 * quality floor the verdicts applied (the contract's, or a what-if's that replaced them), the window
 * and the grace. The page, summary.json and assumptions.json state it, and compare sets two side by
 * side: results judged differently are not comparable.
 *
 * @param recorded false when the windows predate the record (then the contract's are shown, and said to be)
 * @param mixed    more than one set of objectives among the windows (a run replayed into one topic twice)
 */
public record Judging(Contract.Objectives objectives, String objectivesText, double qualityFloor, Double windowS, Double graceS,
                      boolean recorded, boolean mixed) {

    /** The judging of a run's windows; the contract's where they recorded none. */
    static Judging of(RunRecords run, Contract contract) {
        final List<String> texts = run.windows().stream().map(WindowStats::getObjectives).filter(Objects::nonNull).distinct().toList();
        final List<Double> floors = run.windows().stream().map(WindowStats::getQualityFloor).filter(Objects::nonNull).distinct().toList();
        final WindowStats first = run.windows().isEmpty() ? null : run.windows().get(0);
        final Double window = first == null ? null : (Micros.of(first.getWindowEndUs()) - Micros.of(first.getWindowStartUs())) / 1e6;
        final Double grace = first == null || first.getGraceUs() == null ? null : first.getGraceUs() / 1e6;
        final boolean recorded = !texts.isEmpty();
        final Contract.Objectives o = recorded ? parse(texts.get(0)) : contract.objectives();
        return new Judging(o, SloFlags.text(o), floors.isEmpty() ? contract.quality().floor() : floors.get(0), window, grace, recorded,
                texts.size() > 1 || floors.size() > 1);
    }

    static Contract.Objectives parse(String text) {
        return "none".equals(text) ? Contract.Objectives.NONE : SloFlags.parse(Arrays.asList(text.trim().split("\\s+")));
    }

    /**
     * What a what-if changed against the contract, one phrase per objective and the floor: "TTFT
     * replaced (500 ms -> 100 ms)", "TPOT dropped (contract: 50 ms)", "E2E kept (10000 ms)". Empty when
     * the results were judged by the contract's own objectives and floor.
     */
    List<String> against(Contract contract) {
        final Contract.Objectives c = contract.objectives();
        if (c.equals(objectives) && contract.quality().floor() == qualityFloor) {
            return List.of();
        }
        final List<String> out = new ArrayList<>();
        phrase(out, "TTFT", c.ttftUs(), objectives.ttftUs());
        phrase(out, "TPOT", c.tpotUs(), objectives.tpotUs());
        phrase(out, "E2E", c.e2eUs(), objectives.e2eUs());
        if (contract.quality().floor() != qualityFloor) {
            out.add("quality floor replaced (" + contract.quality().floor() + " -> " + qualityFloor + ")");
        } else {
            out.add("quality floor kept (" + qualityFloor + ")");
        }
        return out;
    }

    private static void phrase(List<String> out, String name, Optional<Long> contract, Optional<Long> used) {
        final Function<Long, String> ms = us -> SloFlags.text(new Contract.Objectives(Optional.of(us), Optional.empty(),
                Optional.empty())).substring("ttft:".length()) + " ms";
        if (contract.equals(used)) {
            out.add(name + (used.isPresent() ? " kept (" + ms.apply(used.get()) + ")" : " none, as in the contract"));
        } else if (used.isEmpty()) {
            out.add(name + " dropped (contract: " + ms.apply(contract.get()) + ")");
        } else if (contract.isEmpty()) {
            out.add(name + " added (" + ms.apply(used.get()) + ")");
        } else {
            out.add(name + " replaced (" + ms.apply(contract.get()) + " -> " + ms.apply(used.get()) + ")");
        }
    }

    /** As summary.json and assumptions.json carry it. */
    Map<String, Object> json() {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("objectives", objectivesText);
        m.put("quality_floor", qualityFloor);
        m.put("window_s", windowS);
        m.put("grace_s", graceS);
        m.put("recorded_by_the_windows", recorded);
        return m;
    }
}

#!/usr/bin/env python3
"""Per-minute p99 from a real Prometheus against the exact p99 of the same minute's requests.

Usage: prometheus-minutes.py PROMETHEUS_URL BUNDLE_DIR [--grace-s 5] [--window-s 10]

For every whole minute of the run, asks Prometheus for
histogram_quantile(0.99, sum(rate(X[1m]))) at the minute's end (native histograms when Prometheus
scraped them, the _bucket series otherwise: --classic) and sets it against the exact nearest-rank
p99 of what the sink observed in that minute, from the report bundle:
  TTFT, TPOT, E2E: the OK, measured requests of requests.csv that completed in the minute (the sink
                   observes a verdict within about a second of its completion);
  ITL:             every gap between content chunks (peers/aiperf/*/profile_export.jsonl: AIPerf's
                   inter-chunk latency is Goodput's ITL, first chunk = request start + TTFT), by
                   its 10 s window; the sink adds a window's gaps when the window closes, which is
                   when the watermark passes it, so each window is dated by the first scrape whose
                   gap count (per scenario) reaches the window's cumulative count.
Prints one row per minute and metric and the largest relative difference; exit 1 if over --bar.
"""
import argparse
import csv
import datetime
import glob
import json
import math
import sys
import urllib.parse
import urllib.request

METRICS = {
    "ttft": "gen_ai_client_operation_time_to_first_chunk_seconds",
    "tpot": "goodput_time_per_output_token_seconds",
    "itl": "gen_ai_client_operation_time_per_output_chunk_seconds",
    "e2e": "gen_ai_client_operation_duration_seconds",
}


def p99(values):
    """Nearest rank: the smallest value with at least 99 % of the values at or below it."""
    v = sorted(values)
    return v[max(0, math.ceil(0.99 * len(v)) - 1)]


def query(url, promql, at):
    q = urllib.parse.urlencode({"query": promql, "time": f"{at:.3f}"})
    with urllib.request.urlopen(f"{url}/api/v1/query?{q}") as r:
        body = json.load(r)
    result = body["data"]["result"]
    return float(result[0]["value"][1]) if result else float("nan")


def counts(url, name, scenario, classic):
    """The raw scrapes of one scenario's observation count: [(time s, count)], oldest first."""
    selector = (name + "_count" if classic else name) + '{goodput_scenario="' + scenario + '"}[2h]'
    q = urllib.parse.urlencode({"query": selector})
    with urllib.request.urlopen(f"{url}/api/v1/query?{q}") as r:
        result = json.load(r)["data"]["result"]
    if not result:
        return []
    s = result[0]
    if "histograms" in s:
        return [(float(t), float(h["count"])) for t, h in s["histograms"]]
    return [(float(t), float(v)) for t, v in s["values"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prometheus")
    ap.add_argument("bundle")
    ap.add_argument("--grace-s", type=float, default=5)
    ap.add_argument("--window-s", type=float, default=10)
    ap.add_argument("--classic", action="store_true", help="query the _bucket series (a scrape without native histograms)")
    ap.add_argument("--bar", type=float, default=0.05)
    ap.add_argument("--min-samples", type=int, default=200, help="minutes with fewer samples are shown, not judged")
    a = ap.parse_args()

    observed = {k: [] for k in METRICS}  # (observation time s, value s)
    with open(f"{a.bundle}/requests.csv") as f:
        for r in csv.DictReader(f):
            if r["warmup"] == "true" or r["status"] != "OK":
                continue
            t = int(r["completion_time_us"]) / 1e6
            for k, col in (("ttft", "ttft_us"), ("tpot", "tpot_us"), ("e2e", "e2e_us")):
                if r[col]:
                    observed[k].append((t, float(r[col]) / 1e6))
    for path in sorted(glob.glob(f"{a.bundle}/peers/aiperf/*/profile_export.jsonl")):
        scenario = path.split("/")[-2]
        windows = {}  # window end (s) -> gaps (s)
        for line in open(path):
            rec = json.loads(line)
            m = rec["metrics"]
            if rec.get("error") or "inter_chunk_latency" not in m:
                continue
            at = rec["metadata"]["request_start_ns"] / 1e9 + m["time_to_first_token"]["value"] / 1e3
            for g in m["inter_chunk_latency"]["value"]:
                at += g / 1e3
                windows.setdefault((math.floor(at / a.window_s) + 1) * a.window_s, []).append(g / 1e3)
        samples = counts(a.prometheus, METRICS["itl"], scenario, a.classic)
        cumulative = 0
        for end in sorted(windows):
            cumulative += len(windows[end])
            seen = next((t for t, n in samples if n >= cumulative), None)
            when = seen if seen is not None else end + a.grace_s
            observed["itl"].extend((when, g) for g in windows[end])

    times = [t for k in observed for t, _ in observed[k]]
    first, last = math.ceil(min(times) / 60) * 60, math.floor(max(times) / 60) * 60
    worst = 0.0
    judged = 0
    print(f"{'minute end (UTC)':<20} {'metric':<5} {'n':>7} {'exact p99 ms':>13} {'Prometheus ms':>14} {'diff':>8}")
    for m in range(int(first), int(last), 60):
        end = m + 60
        for k, name in METRICS.items():
            values = [v for t, v in observed[k] if m < t <= end]
            if not values:
                continue
            exact = p99(values)
            series = name if not a.classic else name + "_bucket"
            by = "" if not a.classic else " by (le)"
            prom = query(a.prometheus, f"histogram_quantile(0.99, sum{by}(rate({series}[1m])))", end)
            diff = prom / exact - 1 if exact > 0 else float("nan")
            stamp = datetime.datetime.fromtimestamp(end, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
            shown = len(values) >= a.min_samples
            print(f"{stamp:<20} {k:<5} {len(values):>7} {exact * 1e3:>13.3f} {prom * 1e3:>14.3f} {diff * 100:>+7.2f}%"
                  + ("" if shown else "  (few samples: not judged)"))
            if shown and not math.isnan(diff):
                worst = max(worst, abs(diff))
                judged += 1
    print(f"largest |difference| over {judged} judged minute-metrics: {worst * 100:.2f}% (bar {a.bar * 100:.0f}%)")
    return 0 if judged > 0 and worst <= a.bar else 1


if __name__ == "__main__":
    sys.exit(main())

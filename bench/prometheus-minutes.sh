#!/usr/bin/env bash
# An outside run for the sink's histograms: the README's demo (the matrix once, each scenario
# SCENARIO_SECONDS long, default 40), scraped every second by Debian's Prometheus with native
# histograms (and by a second one without, for the classic buckets), then each whole minute's p99
# from histogram_quantile set against the exact p99 of the same minute's requests in the demo's
# report bundle (bench/prometheus-minutes.py).
# Usage: bench/prometheus-minutes.sh [SCENARIO_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-40}"
work="$(mktemp -d /tmp/goodput-prom-minutes.XXXXXX)"
log="$work/demo.log"
./goodput demo --fresh --data-dir "$work/data" --report-dir "$work/reports" \
  --scenario-seconds "$seconds" --duration 3600s > "$log" 2>&1 &
demo=$!
url=""
for _ in $(seq 1 180); do
  url=$(sed -n 's/.*metrics at \(http[^ ]*\).*/\1/p' "$log" | head -1)
  [ -n "$url" ] && break
  sleep 1
done
[ -n "$url" ] || { cat "$log"; echo "prometheus-minutes: the demo printed no metrics URL"; exit 1; }
target="${url#http://}"; target="${target%%/*}"
start_prometheus() { # dir flags...
  local dir="$1"; shift
  mkdir -p "$dir"
  printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: goodput\n    static_configs:\n      - targets: ["%s"]\n' \
    "$target" > "$dir/prometheus.yml"
  prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/tsdb" --web.listen-address=127.0.0.1:0 "$@" \
    > "$dir/log" 2>&1 &
  echo $! > "$dir/pid"
}
start_prometheus "$work/native" --enable-feature=native-histograms
start_prometheus "$work/classic"
port_of() {
  for _ in $(seq 1 100); do
    p=$(sed -n 's/.*msg="Listening on" address=[^ ]*:\([0-9][0-9]*\)$/\1/p' "$1/log" | head -1)
    [ -n "$p" ] && { echo "$p"; return; }
    sleep 0.2
  done
  echo "prometheus-minutes: Prometheus in $1 did not start" >&2; exit 1
}
native=$(port_of "$work/native"); classic=$(port_of "$work/classic")
wait "$demo" || true
bundle=$(ls -d "$work"/reports/*/ | head -1)
echo "demo: $(head -1 "$log"); bundle $bundle"
echo "== native histograms (Prometheus $(prometheus --version 2>&1 | head -1 | cut -d' ' -f3), --enable-feature=native-histograms)"
status=0
python3 bench/prometheus-minutes.py "http://127.0.0.1:$native" "$bundle" || status=$?
echo "== classic buckets (the same endpoint, scraped without native histograms): shown, not judged"
python3 bench/prometheus-minutes.py "http://127.0.0.1:$classic" "$bundle" --classic --bar 100 || true
kill "$(cat "$work/native/pid")" "$(cat "$work/classic/pid")" 2>/dev/null || true
exit $status

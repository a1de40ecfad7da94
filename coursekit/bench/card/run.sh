#!/usr/bin/env bash
# Card benchmark: `coursekit card` beside DuckDB, polars and the Python
# reference (json + numpy) on the same generated trace, in one run,
# alternating, plus a short fuzz of the reader.
#
#   make bench-card                          # 1,000,000 requests (about 360 MB)
#   REQUESTS=100000 make bench-card          # a quicker run
#   RUNS=5 PY_RUNS=1 FUZZTIME=0 make bench-card
#
# Reports wall time (median), MB/s and peak RSS (from /usr/bin/time) for each
# implementation, the ratios of the card to DuckDB, and checks that all of
# them computed the same numbers.
set -euo pipefail
cd "$(dirname "$0")/../../.."
REQUESTS=${REQUESTS:-1000000}
RUNS=${RUNS:-5}       # runs of the card, DuckDB and polars, alternating
PY_RUNS=${PY_RUNS:-1} # runs of the (slow) Python reference
FUZZTIME=${FUZZTIME:-30s}
work=.cache/bench-card
mkdir -p "$work"

command -v /usr/bin/time >/dev/null || { echo "bench: /usr/bin/time is missing (apt-get install time)"; exit 1; }
req=coursekit/bench/card/requirements.txt
if [ ! -x "$work/venv/bin/python" ] || ! cmp -s "$req" "$work/venv/requirements.txt"; then
  rm -rf "$work/venv"
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q -r "$req"
  cp "$req" "$work/venv/requirements.txt"
fi
py="$work/venv/bin/python"

go build -o "$work/coursekit" ./coursekit/cmd/coursekit
trace="$work/trace-$REQUESTS.jsonl"
if [ ! -s "$trace" ]; then
  "$work/coursekit" gen --seed 42 --requests "$REQUESTS" --rate 200 -o "$trace"
fi
bytes=$(stat -c %s "$trace")
cat "$trace" > /dev/null # page cache warm for every side

one() { # name, command... → appends "name wall_s rss_kb"
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$work/$name.json"
  echo "$name $(cat "$work/time.txt")" >> "$work/results.txt"
}
: > "$work/results.txt"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$RUNS"); do
  one card "$work/coursekit" card "$trace" --slo-ttft 1s --slo-ttft 500ms --format json
  one duckdb "$py" coursekit/bench/card/card_engines.py duckdb "$trace" 1000,500
  one polars "$py" coursekit/bench/card/card_engines.py polars "$trace" 1000,500
  if [ "$i" -le "$PY_RUNS" ]; then
    one python "$py" coursekit/bench/card/card_ref.py "$trace" 1000,500
  fi
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

"$py" - "$work" "$bytes" "$REQUESTS" "$load0" "$load1" <<'PY'
import json, statistics, sys
work, size, requests, load0, load1 = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
names = {"card": "coursekit card", "duckdb": "DuckDB (read_json + SQL)", "polars": "polars (scan_ndjson)",
         "python": "Python reference (json + numpy)"}
g = json.load(open(f"{work}/card.json"))
for other in ("duckdb", "polars", "python"):
    p = json.load(open(f"{work}/{other}.json"))
    for k in ("attempts", "requests", "complete_successes", "failures", "in_flight", "outside_window"):
        assert g[k] == p[k], (other, k, g[k], p[k])
    for d in ("ttft_ms", "e2e_ms", "itl_ms"):
        assert g[d]["n"] == p[d]["n"], (other, d)
        for q in ("p50", "p90", "p95", "p99"):
            assert g[d][q] == p[d][q], (other, d, q, g[d][q], p[d][q])
    for gc, pc in zip(g["conditions"], p["conditions"]):
        assert gc["qualified"] == pc["qualified"], (other, gc, pc)
rows = {}
for line in open(f"{work}/results.txt"):
    name, wall, rss = line.split()
    rows.setdefault(name, []).append((float(wall), int(rss)))
mb = size / 1e6
print(f"trace: {requests} requests, {g['attempts'] + g['outside_window']} attempts, {mb:.0f} MB; "
      "all four agree on every number (attempts, requests, denominators, TTFT/E2E/ITL P50-P99, qualified)")
print(f"load average {load0} at the start, {load1} at the end")
print("| implementation | runs | wall (median) | wall (all runs) | MB/s | peak RSS | RSS / file |")
print("|---|---|---|---|---|---|---|")
med, rss = {}, {}
for name in ("card", "duckdb", "polars", "python"):
    walls = [w for w, _ in rows[name]]
    rss[name] = max(r for _, r in rows[name]) * 1024
    med[name] = statistics.median(walls)
    print(f"| {names[name]} | {len(walls)} | {med[name]:.2f} s | {', '.join(f'{w:.2f}' for w in walls)} | "
          f"{mb / med[name]:.0f} | {rss[name] / 2**20:.0f} MiB | {rss[name] / size:.2f} |")
print(f"card vs DuckDB: {med['duckdb'] / med['card']:.1f}x faster (target >= 3x), "
      f"peak RSS {rss['card'] / rss['duckdb']:.2f}x DuckDB's and {rss['card'] / size:.2f}x the file (target <= 0.5)")
print(f"card vs polars: {med['polars'] / med['card']:.1f}x; vs the Python reference: {med['python'] / med['card']:.1f}x")
PY

if [ "$FUZZTIME" != 0 ]; then
  echo "fuzzing the reader for $FUZZTIME"
  go test -run XXX -fuzz FuzzRead -fuzztime "$FUZZTIME" ./coursekit/trace | tail -2
  go test -run XXX -fuzz FuzzFastPath -fuzztime "$FUZZTIME" ./coursekit/trace | tail -2
fi

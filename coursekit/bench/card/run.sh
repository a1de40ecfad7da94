#!/usr/bin/env bash
# Card benchmark: `coursekit card` vs the Python reference (json + numpy) on
# the same generated trace, in one run, plus a short fuzz of the reader.
#
#   make bench-card                 # 1,000,000 requests (about 360 MB)
#   REQUESTS=100000 make bench-card # a quicker run
#
# Reports wall time, MB/s and peak RSS (from /usr/bin/time) for both sides
# and checks that both computed the same numbers.
set -euo pipefail
cd "$(dirname "$0")/../../.."
REQUESTS=${REQUESTS:-1000000}
RUNS=${RUNS:-3}
FUZZTIME=${FUZZTIME:-30s}
work=.cache/bench-card
mkdir -p "$work"

command -v /usr/bin/time >/dev/null || { echo "bench: /usr/bin/time is missing (apt-get install time)"; exit 1; }
if [ ! -x "$work/venv/bin/python" ] || ! "$work/venv/bin/python" -c 'import numpy' 2>/dev/null; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q -r coursekit/bench/card/requirements.txt
fi

go build -o "$work/coursekit" ./coursekit/cmd/coursekit
trace="$work/trace-$REQUESTS.jsonl"
if [ ! -s "$trace" ]; then
  "$work/coursekit" gen --seed 42 --requests "$REQUESTS" --rate 200 -o "$trace"
fi
bytes=$(stat -c %s "$trace")
cat "$trace" > /dev/null # page cache warm for both sides

measure() { # name, command... → appends "name wall_s rss_kb" per run
  local name=$1; shift
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$work/$name.json"
    echo "$name $(cat "$work/time.txt")" >> "$work/results.txt"
  done
}
: > "$work/results.txt"
measure go "$work/coursekit" card "$trace" --slo-ttft 1s --slo-ttft 500ms --format json
measure python "$work/venv/bin/python" coursekit/bench/card/card_ref.py "$trace" 1000,500

python3 - "$work" "$bytes" "$REQUESTS" <<'PY'
import json, statistics, sys
work, size, requests = sys.argv[1], int(sys.argv[2]), sys.argv[3]
g = json.load(open(f"{work}/go.json")); p = json.load(open(f"{work}/python.json"))
for k in ("attempts", "requests", "complete_successes", "failures", "in_flight", "outside_window"):
    assert g[k] == p[k], (k, g[k], p[k])
for d in ("ttft_ms", "e2e_ms", "itl_ms"):
    assert g[d]["n"] == p[d]["n"], d
    for q in ("p50", "p90", "p95", "p99"):
        assert g[d][q] == p[d][q], (d, q, g[d][q], p[d][q])
for gc, pc in zip(g["conditions"], p["conditions"]):
    assert gc["qualified"] == pc["qualified"], (gc, pc)
rows = {}
for line in open(f"{work}/results.txt"):
    name, wall, rss = line.split()
    rows.setdefault(name, []).append((float(wall), int(rss)))
mb = size / 1e6
print(f"trace: {requests} requests, {g['attempts'] + g['outside_window']} attempts, {mb:.0f} MB; both sides agree on every number")
print("| implementation | wall (median of runs) | MB/s | peak RSS |")
print("|---|---|---|---|")
med = {}
for name in ("go", "python"):
    walls = [w for w, _ in rows[name]]; rss = max(r for _, r in rows[name])
    med[name] = statistics.median(walls)
    label = "coursekit card (Go)" if name == "go" else "Python reference (json + numpy)"
    print(f"| {label} | {med[name]:.2f} s | {mb / med[name]:.0f} | {rss / 1024:.0f} MiB |")
print(f"speed-up: {med['python'] / med['go']:.1f}x; Go peak RSS vs file size: {max(r for _, r in rows['go']) * 1024 / size:.2f}")
PY

echo "fuzzing the reader for $FUZZTIME"
go test -run XXX -fuzz FuzzRead -fuzztime "$FUZZTIME" ./coursekit/trace | tail -2

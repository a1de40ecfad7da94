#!/usr/bin/env bash
# Compare benchmark: `coursekit compare A B` of two generated traces against
# `coursekit card A` and `coursekit card B` run one after the other, on the
# same files, alternating, page cache warm. The issue's bar: compare takes at
# most twice the two cards' time.
#
#   make bench-compare                       # two traces of 1,000,000 requests (about 360 MB each)
#   REQUESTS=100000 make bench-compare       # a quicker run
#   RUNS=3 make bench-compare
#
# The traces are generated here (coursekit gen, seeds 42 and 43) into
# .cache/bench-compare and kept for the next run; nothing is committed. It
# reports the median wall time and peak RSS (/usr/bin/time) of each side, the
# ratio, and checks that compare's A and B are the cards' own numbers.
set -euo pipefail
cd "$(dirname "$0")/../../.."
REQUESTS=${REQUESTS:-1000000}
RUNS=${RUNS:-5}
work=.cache/bench-compare
mkdir -p "$work"
command -v /usr/bin/time >/dev/null || { echo "bench: /usr/bin/time is missing (apt-get install time)"; exit 1; }

go build -o "$work/coursekit" ./coursekit/cmd/coursekit
a="$work/a-$REQUESTS.jsonl"
b="$work/b-$REQUESTS.jsonl"
[ -s "$a" ] || "$work/coursekit" gen --seed 42 --requests "$REQUESTS" --rate 200 -o "$a"
[ -s "$b" ] || "$work/coursekit" gen --seed 43 --requests "$REQUESTS" --rate 200 -o "$b"
cat "$a" "$b" > /dev/null # page cache warm for both sides

one() { # name, output, command... → appends "name wall_s rss_kb"
  local name=$1 out=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$out"
  echo "$name $(cat "$work/time.txt")" >> "$work/results.txt"
}
: > "$work/results.txt"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$RUNS"); do
  one card-a "$work/card-a.json" "$work/coursekit" card "$a" --format json
  one card-b "$work/card-b.json" "$work/coursekit" card "$b" --format json
  one compare "$work/compare.json" "$work/coursekit" compare "$a" "$b" --format json
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$work" "$REQUESTS" "$load0" "$load1" <<'PY'
import json, statistics, sys
work, requests, load0, load1 = sys.argv[1:5]
c = json.load(open(f"{work}/compare.json"))
ca, cb = json.load(open(f"{work}/card-a.json")), json.load(open(f"{work}/card-b.json"))
m = {x["name"]: x for x in c["metrics"]}
for name, dist, q in (("ttft_ms.p50", "ttft_ms", "p50"), ("ttft_ms.p95", "ttft_ms", "p95"), ("ttft_ms.p99", "ttft_ms", "p99"),
                      ("e2e_ms.p95", "e2e_ms", "p95"), ("itl_ms.p50", "itl_ms", "p50"), ("itl_ms.p95", "itl_ms", "p95")):
    assert m[name]["a"] == ca[dist][q] and m[name]["b"] == cb[dist][q], (name, m[name], ca[dist][q], cb[dist][q])
assert m["failure_rate"]["a"] == ca["failure_rate"]["value"] and m["failure_rate"]["b"] == cb["failure_rate"]["value"]
assert m["throughput.output_tokens_per_s"]["a"] == ca["throughput"]["output_tokens_per_s"]["value"]
rows = {}
for line in open(f"{work}/results.txt"):
    name, wall, rss = line.split()
    rows.setdefault(name, []).append((float(wall), int(rss)))
cards = [x[0] + y[0] for x, y in zip(rows["card-a"], rows["card-b"])]
cmp_ = [x[0] for x in rows["compare"]]
print(f"traces: {requests} requests each ({ca['attempts'] + ca['outside_window']} and {cb['attempts'] + cb['outside_window']} attempts); "
      "compare's A and B equal the two cards' numbers")
print(f"load average {load0} at the start, {load1} at the end")
print(f"| run | wall (median of {len(cmp_)}) | runs | peak RSS |")
print("|---|---|---|---|")
print(f"| `coursekit card A` + `coursekit card B` | {statistics.median(cards):.2f} s | {', '.join(f'{v:.2f}' for v in cards)} | "
      f"{max(r for _, r in rows['card-a'] + rows['card-b']) / 1024:.0f} MiB (one card) |")
print(f"| `coursekit compare A B` | {statistics.median(cmp_):.2f} s | {', '.join(f'{v:.2f}' for v in cmp_)} | "
      f"{max(r for _, r in rows['compare']) / 1024:.0f} MiB |")
ratio = statistics.median(cmp_) / statistics.median(cards)
print(f"compare / two cards: {ratio:.2f} (target ≤ 2)")
sys.exit(0 if ratio <= 2 else 1)
PY

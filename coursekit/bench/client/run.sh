#!/usr/bin/env bash
# Client-accuracy benchmark: `coursekit bench` (Go) and AIPerf (Python)
# against one `coursekit sim`, in one run, each in its own process.
#
#   make bench-client
#   GO_RATES="100 1000 5000" PY_RATES="10 100" make bench-client   # a quicker run
#   OLD_REV=e839f53 make bench-client   # also an older coursekit, side by side at each Go rate
#   PY_RATES= make bench-client         # the Go client only: no AIPerf, no venv
#
# For every client and rate: clear the simulator's truth log, run the
# client open loop at a constant rate, fetch GET /debug/truth, then match
# each request's client TTFT with the server's TTFT by X-Request-Id and
# report the client-added error (p50, p99), the send lag and the achieved
# rate. The table ends with each client's sustainable rate (rule in README).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export GOTOOLCHAIN=local
GO_RATES=${GO_RATES:-"100 500 1000 2000 3000 4000 5000"}
PY_RATES=${PY_RATES-"10 20 50 100 200 500 1000"}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
MAX_TOKENS=4
PROMPT_TOKENS=8
work=.cache/bench-client
mkdir -p "$work"
work=$(cd "$work" && pwd)

# 1. Build the Go side.
go build -o "$work/coursekit" ./coursekit/cmd/coursekit
go build -o "$work/analyze" ./coursekit/bench/client
# An older client, built from its own commit, runs right after the current one at
# each rate, so that a change to the client is judged old against new in one run.
OLD_REV=${OLD_REV:-}
if [ -n "$OLD_REV" ]; then
  old_src=$work/old-src
  rm -rf "$old_src" && mkdir -p "$old_src"
  git archive "$OLD_REV" | tar -x -C "$old_src"
  (cd "$old_src" && go build -o "$work/coursekit-old" ./coursekit/cmd/coursekit)
  old_label="coursekit bench (Go, $(git rev-parse --short "$OLD_REV"))"
fi

# 2. The benchmark venv and the tokenizer, offline: nothing comes from a
#    model hub. AIPerf 0.13.0 in offline mode looks every tokenizer name up
#    in the hub cache, so the tiny tokenizer is also laid out as a local
#    cache entry of a made-up repo id.
venv=$work/venv
if [ -n "$PY_RATES" ]; then
  if [ ! -x "$venv/bin/aiperf" ] || ! "$venv/bin/pip" freeze 2>/dev/null | grep -x 'aiperf==0.13.0' >/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r coursekit/bench/client/requirements.txt
  fi
  export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1
  export HF_HUB_CACHE=$work/hf HF_HOME=$work/hf-home
  tokenizer_id=coursekit/tiny-wordlevel
  "$venv/bin/python" coursekit/bench/client/make_tokenizer.py "$work/tokenizer" "$HF_HUB_CACHE" "$tokenizer_id" >/dev/null
fi

# 3. One simulator for the whole run, on a free loopback port.
rm -f "$work/sim.log"
"$work/coursekit" sim --addr 127.0.0.1:0 --preset bench 2> "$work/sim.log" &
sim_pid=$!
trap 'kill "$sim_pid" 2>/dev/null || true' EXIT
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/sim.log" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.05
done
[ -n "$url" ] || { cat "$work/sim.log"; echo "bench-client: the simulator did not start"; exit 1; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "simulator: $url (coursekit sim --preset bench: max batch 1048576, decode step 1 ms, no per-sequence or prefill cost)"

rows=$work/rows.jsonl
: > "$rows"
truth() { # file: waits until the server has finished every request, then saves the log
  sleep 0.5
  curl -sf "$url/debug/truth" > "$1"
}

# 4. The Go client: constant-rate open loop.
go_run() { # binary client label rate
  curl -sf -X DELETE "$url/debug/truth"
  out=$work/$2-$4.jsonl
  "$1" bench --url "$url" --rate "$4" --arrival constant \
    --duration "${SECONDS_PER_RUN}s" --timeout 10s --max-tokens $MAX_TOKENS --prompt-tokens $PROMPT_TOKENS \
    --progress 0 --out "$out" 2> "$work/$2-$4.log" || { cat "$work/$2-$4.log"; exit 1; }
  truth "$work/truth-$2-$4.json"
  expected=$(awk -v r="$4" -v s="$SECONDS_PER_RUN" 'BEGIN { printf "%d", r * s }')
  "$work/analyze" row --client go --label "$3" --rate "$4" --expected "$expected" \
    --truth "$work/truth-$2-$4.json" --in "$out" | tee -a "$rows" | cut -c1-200
}
for rate in $GO_RATES; do
  go_run "$work/coursekit" go "coursekit bench (Go)" "$rate"
  if [ -n "$OLD_REV" ]; then
    go_run "$work/coursekit-old" go-old "$old_label" "$rate"
  fi
done

# 5. AIPerf: the same load (constant rate, same prompt and output lengths,
#    streaming completions with usage), one profiling run per rate.
for rate in $PY_RATES; do
  curl -sf -X DELETE "$url/debug/truth"
  count=$(awk -v r="$rate" -v s="$SECONDS_PER_RUN" 'BEGIN { printf "%d", r * s }')
  dir=$work/aiperf-$rate
  rm -rf "$dir"
  "$venv/bin/aiperf" profile --model sim-model --url "$url" --endpoint-type completions --streaming \
    --tokenizer "$tokenizer_id" --request-rate "$rate" --arrival-pattern constant --request-count "$count" \
    --prompt-input-tokens-mean $PROMPT_TOKENS --prompt-input-tokens-stddev 0 \
    --prompt-output-tokens-mean $MAX_TOKENS --prompt-output-tokens-stddev 0 \
    --extra-inputs max_tokens:$MAX_TOKENS --use-server-token-count --random-seed 1 \
    --ui-type none --no-server-metrics --no-gpu-telemetry --export-level records \
    --output-artifact-dir "$dir" > "$work/aiperf-$rate.log" 2>&1 || { tail -30 "$work/aiperf-$rate.log"; exit 1; }
  truth "$work/truth-aiperf-$rate.json"
  "$work/analyze" row --client aiperf --label "AIPerf 0.13.0 (Python)" --rate "$rate" --expected "$count" \
    --truth "$work/truth-aiperf-$rate.json" --in "$dir/profile_export.jsonl" | tee -a "$rows" | cut -c1-200
done

echo
echo "client-added TTFT error = client TTFT − server TTFT per request, matched by X-Request-Id; lag = send time behind an ideal constant schedule; ${SECONDS_PER_RUN} s per run"
"$work/analyze" table "$rows" | tee "$work/table.md"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (figures from a busy machine are noisy)"

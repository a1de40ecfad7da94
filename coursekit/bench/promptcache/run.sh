#!/usr/bin/env bash
# The prompt-cache figures of docs/engineers.md ("Prompt cache: fresh prompts per run"),
# measured on the default engine: `make engine`'s llama.cpp with SmolLM2-135M, 1 thread,
# 1 slot (docker/engine.mk's defaults; ENGINE_PARALLEL and ENGINE_THREADS change them).
#
#   make bench-prompt-cache
#   REPLAYS=1 make bench-prompt-cache     # one --prompt-salt pair instead of three
#
# Each row runs on a freshly started engine (nothing cached from the row before):
# the same `coursekit bench` command twice in a row, then the TTFT P50 of each run
# and, for the second, how many requests found their whole prompt in llama.cpp's
# cache (prompt_n ≤ 2: only the last token computed) and the cached / computed
# prompt tokens (server_timings cache_n / prompt_n).
set -euo pipefail
cd "$(dirname "$0")/../../.."
export GOTOOLCHAIN=local
REPLAYS=${REPLAYS:-3}
work=.cache/bench-prompt-cache
mkdir -p "$work"
work=$(cd "$work" && pwd)
make --no-print-directory engine-setup >/dev/null
py=$(pwd)/.lab/engine/bin/python
go build -o "$work/coursekit" ./coursekit/cmd/coursekit
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
parallel=${ENGINE_PARALLEL:-1}
threads=${ENGINE_THREADS:-1}
engine_pid=
start() {
  rm -f "$work/engine.log"
  (cd docker/engine && exec "$py" serve.py --port "$port" --threads "$threads" --parallel "$parallel" --ctx 2048) > "$work/engine.log" 2>&1 &
  engine_pid=$!
  for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null && return
    kill -0 "$engine_pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$work/engine.log"; echo "bench-prompt-cache: the engine did not start"; exit 1
}
stop() {
  kill "$engine_pid" 2>/dev/null || true
  wait "$engine_pid" 2>/dev/null || true
  engine_pid=
}
trap stop EXIT
bench() { # out [flags...]
  local out=$1; shift
  "$work/coursekit" bench --url "http://127.0.0.1:$port" --api chat --concurrency 1 --num-requests 20 \
    --max-tokens 8 --duration 5m --progress 0 --out "$work/$out" "$@" 2> "$work/$out.log" || { cat "$work/$out.log"; exit 1; }
}
salt() { python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["meta"]["prompt_salt"])' "$work/$1"; }

# 20 fixed prompts of 32 words, sent as written (a --dataset is never salted).
python3 - "$work/fixed20.jsonl" <<'PY'
import json, random, sys
words = "the of and to in is was for on are with as by at from that this be or an have it not but what all were when we there can".split()
random.seed(7)
with open(sys.argv[1], "w") as f:
    for i in range(20):
        f.write(json.dumps({"prompt": "q%d %s" % (i, " ".join(random.choice(words) for _ in range(31)))}) + "\n")
PY

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start; engine: $threads thread(s), $parallel slot(s)"
rm -f "$work"/row-*.jsonl
start; bench row-dataset-1.jsonl --dataset "$work/fixed20.jsonl"; bench row-dataset-2.jsonl --dataset "$work/fixed20.jsonl"; stop
start; bench row-fresh-1.jsonl; bench row-fresh-2.jsonl; stop
for i in $(seq "$REPLAYS"); do
  start; bench "row-salt$i-1.jsonl"; bench "row-salt$i-2.jsonl" --prompt-salt "$(salt "row-salt$i-1.jsonl")"; stop
done
start; bench row-same-1.jsonl --prompt-reuse same; stop
start; bench row-shared-1.jsonl --prompt-reuse shared-prefix:24; stop
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 coursekit/bench/promptcache/table.py "$work" "$REPLAYS" | tee "$work/table.md"

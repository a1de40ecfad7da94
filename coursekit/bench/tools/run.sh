#!/usr/bin/env bash
# What each client counts for the same load against the real engine:
# coursekit bench, an older coursekit bench (OLD_REV), guidellm 0.8.1 and
# AIPerf 0.13.0, one after another against one llama.cpp server
# (SmolLM2-135M, 1 thread, 2 slots), each as its own process.
#
#   make bench-tools
#   REQUESTS=80 make bench-tools          # more requests per client (default 40)
#   OLD_REV= make bench-tools             # without the older coursekit
#
# The load is the same for every client: chat completions, streaming, closed
# loop with 2 users, REQUESTS requests, max_tokens 24, prompts of about 32
# tokens. Each tool's own result file is then read by `coursekit import`,
# which prints the tool's numbers beside the card recomputed from its
# per-request records (saved as import-TOOL.txt), and the summary table puts
# the four cards side by side.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export GOTOOLCHAIN=local
REQUESTS=${REQUESTS:-40}
OLD_REV=${OLD_REV-e839f53}
work=.cache/bench-tools
mkdir -p "$work"
work=$(cd "$work" && pwd)

# 1. coursekit, the older coursekit, the engine's venv and the Python clients' venv.
go build -o "$work/coursekit" ./coursekit/cmd/coursekit
if [ -n "$OLD_REV" ]; then
  rm -rf "$work/old-src" && mkdir -p "$work/old-src"
  git archive "$OLD_REV" | tar -x -C "$work/old-src"
  (cd "$work/old-src" && go build -o "$work/coursekit-old" ./coursekit/cmd/coursekit)
fi
make --no-print-directory engine-setup >/dev/null
engine_py=$(pwd)/.lab/engine/bin/python
venv=$work/venv
if [ ! -x "$venv/bin/guidellm" ] || ! "$venv/bin/pip" freeze 2>/dev/null | grep -x 'aiperf==0.13.0' >/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r coursekit/bench/tools/requirements.txt
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1
export HF_HUB_CACHE=$work/hf HF_HOME=$work/hf-home
tokenizer_id=coursekit/tiny-wordlevel
"$venv/bin/python" coursekit/bench/client/make_tokenizer.py "$work/tokenizer" "$HF_HUB_CACHE" "$tokenizer_id" >/dev/null

# 2. The engine on a free loopback port, 1 thread, 2 slots.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
(cd docker/engine && exec "$engine_py" serve.py --port "$port" --threads 1 --parallel 2) > "$work/engine.log" 2>&1 &
engine_pid=$!
trap 'kill "$engine_pid" 2>/dev/null || true' EXIT
for _ in $(seq 300); do
  curl -sf "$url/health" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "$url/health" >/dev/null || { cat "$work/engine.log"; echo "bench-tools: the engine did not start"; exit 1; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "engine: $url (llama.cpp via xllamacpp, SmolLM2-135M-Instruct Q4_1, 1 thread, 2 slots)"

# 3. The clients, one after another.
bench() { # binary out
  "$1" bench --url "$url" --api chat --model smollm2-135m --concurrency 2 --num-requests "$REQUESTS" \
    --duration 30m --max-tokens 24 --prompt-tokens 32 --progress 0 --out "$2" 2> "$2.log" || { cat "$2.log"; exit 1; }
}
bench "$work/coursekit" "$work/coursekit.jsonl"
echo "coursekit bench: done"
if [ -n "$OLD_REV" ]; then
  # The older client has no --num-requests: a window long enough for about REQUESTS requests.
  "$work/coursekit-old" bench --url "$url" --api chat --model smollm2-135m --concurrency 2 \
    --duration "$(( REQUESTS * 3 / 4 ))s" --max-tokens 24 --prompt-tokens 32 --progress 0 \
    --out "$work/coursekit-old.jsonl" 2> "$work/coursekit-old.log" || { cat "$work/coursekit-old.log"; exit 1; }
  echo "coursekit bench $OLD_REV: done"
fi
rm -rf "$work/guidellm.json"
"$venv/bin/guidellm" run --backend "kind=openai_http,target=$url,model=smollm2-135m,request_format=/v1/chat/completions" \
  --profile kind=concurrent,streams=2 --constraint "kind=max_requests,count=$REQUESTS" \
  --tokenizer "kind=huggingface_auto,model=$work/tokenizer" --data kind=synthetic_text,prompt_tokens=32,output_tokens=24 \
  --output "kind=json,path=$work/guidellm.json" --disable-console-interactive > "$work/guidellm.log" 2>&1 \
  || { tail -30 "$work/guidellm.log"; exit 1; }
echo "guidellm: done"
rm -rf "$work/aiperf"
"$venv/bin/aiperf" profile --model smollm2-135m --url "$url" --endpoint-type chat --streaming \
  --tokenizer "$tokenizer_id" --concurrency 2 --request-count "$REQUESTS" \
  --prompt-input-tokens-mean 32 --prompt-input-tokens-stddev 0 \
  --prompt-output-tokens-mean 24 --prompt-output-tokens-stddev 0 \
  --extra-inputs max_tokens:24 --use-server-token-count --random-seed 1 \
  --ui-type none --no-server-metrics --no-gpu-telemetry --export-level records \
  --output-artifact-dir "$work/aiperf" > "$work/aiperf.log" 2>&1 || { tail -30 "$work/aiperf.log"; exit 1; }
echo "aiperf: done"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# 4. Each tool's file through `coursekit import`, then the cards side by side.
"$work/coursekit" import --from guidellm -o "$work/guidellm.trace.jsonl" "$work/guidellm.json" 2> "$work/import-guidellm.txt"
"$work/coursekit" import --from aiperf --summary "$work/aiperf/profile_export_aiperf.json" \
  -o "$work/aiperf.trace.jsonl" "$work/aiperf/profile_export.jsonl" 2> "$work/import-aiperf.txt"
rows=("coursekit bench|$work/coursekit.jsonl")
[ -n "$OLD_REV" ] && rows+=("coursekit bench $OLD_REV|$work/coursekit-old.jsonl")
rows+=("guidellm 0.8.1, imported|$work/guidellm.trace.jsonl" "AIPerf 0.13.0, imported|$work/aiperf.trace.jsonl")
echo
echo "| client | attempts | failures | conn. retries | TTFT p50 (ms) | E2E p50 (ms) | events | event gap p50 (ms) | output tokens | prompt-cache hits |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for row in "${rows[@]}"; do
  name=${row%%|*} file=${row#*|}
  retries=$({ grep -o '"conn_retries":[0-9]*' "$file" || true; } | awk -F: '{ s += $2 } END { print s + 0 }')
  "$work/coursekit" card --format json "$file" | jq -r --arg name "$name" --arg retries "$retries" '
    def r: if . == null then "—" else (. * 10 | round / 10 | tostring) end;
    [$name, .attempts, .failures, $retries, (.ttft_ms.p50 | r), (.e2e_ms.p50 | r),
     (.streamed_events.events // "—"), (.itl_ms.p50 | r),
     (.streamed_events.usage_output_tokens // .throughput.output_tokens_per_s.num // "—"),
     (.server_timings.cache_hits // "—")]
    | "| " + (map(tostring) | join(" | ")) + " |"'
done
echo
echo "each tool's own numbers beside the card: $work/import-guidellm.txt, $work/import-aiperf.txt"

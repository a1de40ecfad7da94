#!/usr/bin/env bash
# `make hub-capacity`: N learners on one hub at once, each running the unit's notebooks through
# the hub (login, spawn, a GoNB kernel per notebook over the proxy's websocket: what a learner's
# browser does), measured from the host (docker/test/hub/sampler.py):
#   - CPU seconds per learner for the whole unit (cgroup CPU time, not wall time: other load on
#     the machine does not inflate it), idle server start-up apart;
#   - peak memory per learner (cgroup, includes the page cache of Go builds) and the peak resident
#     memory of the Jupyter server, the GoNB kernel, gopls, the Go toolchain, the cell programs, the real engine;
#   - the Go build cache each learner adds, and the volume's size;
#   - load averages before and after (other jobs on the machine are in them).
# Writes out/hub-capacity/report.txt; README's sizing table is made from it.
#
#   HUB_LEARNERS=3        learners at once
#   HUB_NOTEBOOKS="..."   notebooks to run, relative to the work dir (default: notebooks/unit01/*)
#   COURSEHUB_CPU_LIMIT, COURSEHUB_MEM_LIMIT  per-learner limits while measuring (default 2, 4G:
#                         high enough not to shape what is measured)
set -euo pipefail

cd "$(dirname "$0")/../../.."
REPO=$(pwd)
IMAGE=${IMAGE:-llmperf-course-lab:latest}
PREFIX=coursehub-cap
OUT="$REPO/out/hub-capacity"
HUB_VENV=${HUB_VENV:-$REPO/.hub/venv}
HUB_WHO=hub-capacity
N=${HUB_LEARNERS:-3}
# shellcheck source=docker/test/hub/lib.sh
. "$REPO/docker/test/hub/lib.sh"

sampler_pid=
cleanup() {
  local rc=$?
  [ -n "$sampler_pid" ] && kill "$sampler_pid" 2>/dev/null
  hub_cleanup
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -rf "$OUT"; mkdir -p "$OUT/run"
hub_cleanup 2>/dev/null; HUB_PIDS=()

if [ -z "${HUB_NOTEBOOKS:-}" ]; then
  HUB_NOTEBOOKS=$(cd "$REPO" && ls notebooks/unit01/*.ipynb | tr '\n' ' ')
fi
learners=$(seq -f 'learner%g' 1 "$N" | paste -sd, -)
export COURSEHUB_LEARNERS=$learners COURSEHUB_INSTRUCTORS=teacher
export COURSEHUB_TEST_USER_PASSWORD="capacity-pw-$RANDOM$RANDOM"
export COURSEHUB_CPU_LIMIT=${COURSEHUB_CPU_LIMIT:-2} COURSEHUB_MEM_LIMIT=${COURSEHUB_MEM_LIMIT:-4G}

hub_engine
hub_network
hub_start COURSEHUB_CULL_TIMEOUT=3600
echo "hub-capacity: hub at $HUB_URL, $N learners: $learners"

# Spawn everyone, then let the servers settle: the idle server is measured on its own.
py() { (cd "$REPO/docker/test/hub" && "$HUB_VENV/bin/python" "$@"); }
for u in ${learners//,/ }; do
  py -c "import sys; from hubclient import Learner; Learner(sys.argv[1], sys.argv[2], sys.argv[3]).start()" \
    "$HUB_URL" "$u" "$COURSEHUB_TEST_USER_PASSWORD"
done
containers=$(for u in ${learners//,/ }; do echo "$PREFIX-$u"; done)
sleep 5
idle=$(for c in $containers; do podman stats --no-stream --format '{{.MemUsage}}' "$c" | cut -d/ -f1; done | paste -sd' ')
for c in $containers; do podman exec "$c" du -sk /opt/coursekit/gocache | cut -f1; done >"$OUT/gocache-before.txt"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
"$HUB_VENV/bin/python" "$REPO/docker/test/hub/sampler.py" "$OUT/samples.json" $containers &
sampler_pid=$!
sleep 1
t0=$(date +%s)
pids=()
for u in ${learners//,/ }; do
  # shellcheck disable=SC2086
  py hubclient.py run-notebooks "$HUB_URL" "$u" "$COURSEHUB_TEST_USER_PASSWORD" $HUB_NOTEBOOKS >"$OUT/$u.log" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
wall=$(( $(date +%s) - t0 ))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
kill "$sampler_pid"; wait "$sampler_pid" || true; sampler_pid=
cat "$OUT"/learner*.log
[ "$rc" = 0 ] || hub_die "a learner's notebook failed (logs in $OUT)"
for c in $containers; do podman exec "$c" du -sk /opt/coursekit/gocache | cut -f1; done >"$OUT/gocache-after.txt"
for c in $containers; do podman exec "$c" du -sk /home/learner/work | cut -f1; done >"$OUT/volume.txt"

"$HUB_VENV/bin/python" - "$OUT" "$N" "$wall" "$load_before" "$load_after" "$idle" "$HUB_NOTEBOOKS" <<'EOF' | tee "$OUT/report.txt"
import json, os, statistics, sys
out, n, wall, lb, la, idle, nbs = sys.argv[1:8]
s = json.load(open(os.path.join(out, "samples.json")))["containers"]
gb = [int(x) for x in open(os.path.join(out, "gocache-before.txt")).read().split()]
ga = [int(x) for x in open(os.path.join(out, "gocache-after.txt")).read().split()]
vol = [int(x) for x in open(os.path.join(out, "volume.txt")).read().split()]
MiB = 1 << 20
print(f"hub-capacity: {n} learners at once, each running {len(nbs.split())} notebooks ({nbs.strip()})")
print(f"machine: {os.cpu_count()} cores; load average before {lb}, after {la}; wall {wall} s for everyone")
print(f"idle server after spawn (podman stats): {idle}")
rows = []
for i, (name, c) in enumerate(sorted(s.items())):
    k = c["kinds_peak_kib"]
    peak = c["mem_peak"] or c["mem_max_sampled"]
    sp = c.get("stat_peak", {})
    rows.append((name, c["cpu_s"], peak / MiB, (sp.get("rss", sp.get("anon", 0))) / MiB, (sp.get("cache", sp.get("file", 0))) / MiB,
                 k["jupyter server"] / 1024, k["gonb kernel"] / 1024, k["gopls"] / 1024, k["go toolchain"] / 1024,
                 k["cell programs"] / 1024, k.get("engine", 0) / 1024, (ga[i] - gb[i]) / 1024, vol[i] / 1024))
hdr = ("learner", "CPU s", "peak MiB", "anon MiB", "cache MiB", "server", "gonb", "gopls", "go build", "cells", "engine", "GOCACHE +MiB", "volume MiB")
print(" | ".join(hdr))
for r in rows:
    print(" | ".join([r[0]] + [f"{v:.0f}" if j != 1 else f"{v:.1f}" for j, v in enumerate(r[1:], 1)]))
cpu = [r[1] for r in rows]; mem = [r[2] for r in rows]
print(f"per learner: CPU seconds for the unit median {statistics.median(cpu):.1f} (max {max(cpu):.1f}); "
      f"peak memory median {statistics.median(mem):.0f} MiB (max {max(mem):.0f} MiB)")
EOF

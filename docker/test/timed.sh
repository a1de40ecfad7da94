#!/usr/bin/env bash
# Where the test suite's time goes: each target's wall time and the machine's load while it ran.
#
#   timed.sh run FILE NAME -- CMD...   run CMD; append one row to FILE; exit with CMD's status
#   timed.sh table FILE [TITLE]        print FILE as a table, with the total wall time
#   timed.sh failures FILE             for each failed row, the lines of its log that name a
#                                      failure and the log's last lines
#
# CMD's output goes to the terminal and to NAME.log beside FILE, so that a failure deep in a long
# run is shown again at its end, where a CI page that keeps only the tail can see it.
# A row is NAME, seconds, exit status, and the 1-minute load average (/proc/loadavg) sampled
# every 5 s while CMD ran: its mean and its maximum. The load says whether a slow target was
# slow or starved: on the 2-core machine a load above 2 means work waited for a CPU.
set -uo pipefail

run() {
  local file=$1 name=$2
  shift 2
  [ "${1:-}" = "--" ] && shift
  mkdir -p "$(dirname "$file")"
  local samples
  samples=$(mktemp)
  cut -d' ' -f1 /proc/loadavg >"$samples"
  ( while sleep 5; do cut -d' ' -f1 /proc/loadavg; done ) >>"$samples" &
  local sampler=$!
  local start=$SECONDS status=0
  "$@" 2>&1 | tee "$(dirname "$file")/$name.log"
  status=${PIPESTATUS[0]}
  local secs=$((SECONDS - start))
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
  cut -d' ' -f1 /proc/loadavg >>"$samples"
  local load
  load=$(awk '{s += $1; if ($1 > m) m = $1; n++} END {if (n) printf "%.1f\t%.1f", s / n, m; else printf "-\t-"}' "$samples")
  rm -f "$samples"
  printf '%s\t%d\t%d\t%s\n' "$name" "$secs" "$status" "$load" >>"$file"
  return "$status"
}

table() {
  local file=$1 title=${2:-timing}
  [ -s "$file" ] || { echo "$title: no target ran"; return 0; }
  echo
  echo "== $title: wall time per target, load average (1 min) mean / max, $(nproc) CPUs =="
  awk -F'\t' '
    { t += $2; fail += ($3 != 0)
      printf "%-22s %6d s  %5.1f min  %-8s load %4s / %-4s\n", $1, $2, $2 / 60, ($3 == 0 ? "ok" : "FAILED(" $3 ")"), $4, $5 }
    END { printf "%-22s %6d s  %5.1f min  %d failed\n", "sum", t, t / 60, fail }' "$file"
}

# The markers of a failure in this suite's outputs: Go's test output, node --test's TAP, the
# Python checks' "FAIL " lines, tracebacks and panics; the lanes' "[target] " prefix allowed.
FAILURE_LINE='^(\[[^]]*\] )*[[:space:]]*(not ok|--- FAIL|FAIL|Traceback|panic:|[A-Za-z]*Error:|error:|make(\[[0-9]+\])?: \*\*\*)'

failures() {
  local file=$1 dir name status
  dir=$(dirname "$file")
  [ -s "$file" ] || return 0
  while IFS=$'\t' read -r name _ status _; do
    [ "$status" = 0 ] && continue
    local log="$dir/$name.log"
    echo
    echo "== $name failed (exit $status): the lines that name a failure, then its last 20 lines ($log) =="
    [ -f "$log" ] || { echo "(no log)"; continue; }
    # node --test puts the assertion's message on the lines after "not ok" (its YAML block).
    grep -E -B 2 -A 12 -- "$FAILURE_LINE" "$log" | grep -v -E '^(\[[^]]*\] )?  (---|duration_ms|location|failureType|code|name|expected|actual|operator):' | tail -n 60 | cut -c1-400
    echo "-- last lines:"
    tail -n 20 "$log" | cut -c1-400
  done <"$file"
}

cmd=${1:-}
shift || true
case "$cmd" in
  run) run "$@" ;;
  table) table "$@" ;;
  failures) failures "$@" ;;
  *) echo "usage: timed.sh run FILE NAME -- CMD... | timed.sh table FILE [TITLE] | timed.sh failures FILE" >&2; exit 2 ;;
esac

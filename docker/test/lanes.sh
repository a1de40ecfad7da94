#!/usr/bin/env bash
# Runs make targets in lanes: the targets of one lane one after another, the lanes side by side.
#
#   lanes.sh TIMING_FILE TITLE "TARGET..." ["TARGET..." ...]
#
# Every target runs even when one before it failed (a later target that needs an earlier one's
# output fails with a message that names it). Each output line is prefixed with its target's name,
# so side-by-side lanes stay readable. Each target's wall time and load average go to TIMING_FILE
# (docker/test/timed.sh); the table is printed at the end, also when a target failed. Exits 1 if
# any target failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
file=$1 title=$2
shift 2
mkdir -p "$(dirname "$file")"

lane() {
  local status=0 t
  for t in $1; do
    # The prefix keeps each line whole (sed -u flushes per line); PIPESTATUS keeps make's status.
    bash "$here/timed.sh" run "$file" "$t" -- bash -c \
      'make --no-print-directory "$1" 2>&1 | sed -u "s/^/[$1] /"; exit "${PIPESTATUS[0]}"' _ "$t" || status=1
  done
  return $status
}

start=$SECONDS
pids=()
for targets in "$@"; do
  lane "$targets" &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
bash "$here/timed.sh" table "$file" "$title"
echo "$title: $((SECONDS - start)) s wall for $# lane(s) side by side ($(( (SECONDS - start) / 60 )) min); load average now $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status

#!/usr/bin/env bash
# Runs make targets in lanes: the targets of one lane one after another, the lanes side by side.
#
#   lanes.sh TIMING_FILE TITLE "TARGET..." ["TARGET..." ...]
#
# A word after:TARGET in a lane waits there until another lane has run TARGET.
# Every target runs even when one before it failed (a later target that needs an earlier one's
# output fails with a message that names it). Each output line is prefixed with its target's name,
# so side-by-side lanes stay readable. Each target's wall time and load average go to TIMING_FILE
# (docker/test/timed.sh); at the end come each failed target's failing lines, then the table, also
# when a target failed. Exits 1 if any target failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
file=$1 title=$2
shift 2
mkdir -p "$(dirname "$file")"

# after:TARGET waits until TARGET (run by another lane) has its row in the timing file, whether
# it passed or failed; it gives up, failing, after LANES_WAIT_S seconds (default 3600).
await() {
  local target=$1 waited=0
  until cut -f1 "$file" 2>/dev/null | grep -qx -- "$target"; do
    if [ "$waited" -ge "${LANES_WAIT_S:-3600}" ]; then
      echo "lanes: gave up waiting for $target after ${waited} s" >&2
      return 1
    fi
    sleep 2; waited=$((waited + 2))
  done
}

lane() {
  local status=0 t
  for t in $1; do
    if [[ $t == after:* ]]; then
      await "${t#after:}" || status=1
      continue
    fi
    # The prefix keeps each line whole (sed -u flushes per line); PIPESTATUS keeps make's status.
    bash "$here/timed.sh" run "$file" "$t" -- bash -c \
      'make --no-print-directory "$1" 2>&1 | sed -u "s/^/[$1] /"; exit "${PIPESTATUS[0]}"' _ "$t" || status=1
  done
  return $status
}

all=" $* "
for t in $*; do
  if [[ $t == after:* ]] && [[ $all != *" ${t#after:} "* ]]; then
    echo "lanes: $t: no lane runs ${t#after:}" >&2; exit 2
  fi
done

start=$SECONDS
pids=()
for targets in "$@"; do
  lane "$targets" &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
bash "$here/timed.sh" failures "$file"
bash "$here/timed.sh" table "$file" "$title"
echo "$title: $((SECONDS - start)) s wall for $# lane(s) side by side ($(( (SECONDS - start) / 60 )) min); load average now $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status

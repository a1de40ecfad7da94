#!/usr/bin/env bash
# One step of `make lab-setup`, named and timed, with its output in a log file:
#
#   bash docker/lab-step.sh "2/5" "what the step does" LOGFILE -- COMMAND...
#
# Prints "lab-setup [2/5] what the step does ...", then every 15 s how long it has been running
# (a cold pip install or `go install` is quiet for minutes), and "done in N s" at the end. On a
# failure it prints the last lines of the log and exits with the command's status.
set -uo pipefail
[ $# -ge 5 ] && [ "$4" = "--" ] || { echo "usage: lab-step.sh N/M DESCRIPTION LOG -- COMMAND..." >&2; exit 2; }
n=$1 what=$2 log=$3
shift 4
mkdir -p "$(dirname "$log")"
echo "lab-setup [$n] $what ..."
start=$(date +%s)
"$@" >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; exit 130' INT TERM
while kill -0 "$pid" 2>/dev/null; do
  for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
    sleep 1
    kill -0 "$pid" 2>/dev/null || break 2
  done
  echo "lab-setup [$n]   ... $(( $(date +%s) - start )) s"
done
wait "$pid"
rc=$?
took=$(( $(date +%s) - start ))
if [ "$rc" != 0 ]; then
  echo "lab-setup [$n] FAILED after $took s (exit $rc); the end of $log:" >&2
  tail -n 25 "$log" | sed 's/^/  | /' >&2
  exit "$rc"
fi
echo "lab-setup [$n] done in $took s"

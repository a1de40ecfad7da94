#!/usr/bin/env bash
# Part of `make test-image` (needs the image it built): `coursekit grade --execute` for real.
#   assign 7 learners -> they fill their card and run the deliverable in the image, offline ->
#   some change things afterwards (an endless loop, a panicking cell, an edited saved output, an
#   edited locked cell), one never runs it -> grade --execute re-runs every submission in the image with no network,
#   locked cells restored, per-cell and whole-notebook timeouts, two at a time ->
#   grades.csv, feedback and results.json say, per learner, what happened; the batch never stops.
# Prints the per-submission time. Learner code runs only inside containers.
#
# Environment: IMAGE (default llmperf-course-lab:latest), OUT (default out/test-image).
set -euo pipefail
cd "$(dirname "$0")/../.."
IMAGE=${IMAGE:-llmperf-course-lab:latest}
OUT=${OUT:-out/test-image}/grade-execute
fail() { printf '\ntest-grade-execute: FAIL: %s\n' "$*" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/grade-execute.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/coursekit" ./coursekit/cmd/coursekit
ck="$tmp/coursekit"
learners=$(python3 -c 'import sys; sys.path.insert(0, "docker/test"); import grade_execute_fixtures as f; print(" ".join(f.LEARNERS))')
{ echo id; for l in $learners; do echo "$l"; done; } >"$tmp/roster.csv"
head -c 32 /dev/urandom | base64 >"$tmp/key"

"$ck" assign --roster "$tmp/roster.csv" --key-file "$tmp/key" --out "$tmp/release" >/dev/null
python3 docker/test/grade_execute_fixtures.py fill "$tmp/release" docker/test/testdata/reference-card.go.txt

# The learners run their notebooks in the lab (here: the image, offline), as uid 1000.
chown -R 1000:1000 "$tmp/release"
if ! podman run --rm --network none -v "$tmp/release:/home/learner/release" "$IMAGE" \
      sh -c 'python3 /opt/coursekit/nbrun.py --out /home/learner/release/.ran /home/learner/release/*/06-deliverable.ipynb' \
      >"$OUT/learners.log" 2>&1; then
  cat "$OUT/learners.log"
  fail "the filled deliverables did not run in the image (log: $OUT/learners.log)"
fi
python3 docker/test/grade_execute_fixtures.py tamper "$tmp/release/.ran" "$tmp/submitted"

t0=$(date +%s.%N)
if ! "$ck" grade --key-file "$tmp/key" --roster "$tmp/roster.csv" --out "$tmp/graded" \
      --execute --image "$IMAGE" --jobs 2 --cell-timeout 20s --timeout 180s \
      "$tmp/submitted" >"$OUT/grade.log" 2>&1; then
  cat "$OUT/grade.log"
  fail "coursekit grade --execute failed (log: $OUT/grade.log)"
fi
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
cat "$OUT/grade.log"
mkdir -p "$OUT/graded" && cp -r "$tmp/graded/." "$OUT/graded/"
python3 docker/test/grade_execute_fixtures.py check "$tmp/graded" || fail "grades after --execute are not as expected (outputs in $OUT/graded)"
n=$(echo $learners | wc -w)
grep -q "^executed $n submissions" "$OUT/grade.log" || fail "grade did not execute all $n submissions"
leftover=$(podman ps -a --filter name=coursekit-grade- --format '{{.Names}}')
[ -z "$leftover" ] || fail "containers left behind: $leftover"
echo "test-grade-execute: ok: $n submissions graded with --execute in ${el} s (wall, 2 at a time), no container left"

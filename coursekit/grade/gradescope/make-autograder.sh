#!/usr/bin/env bash
# Builds the Gradescope autograder zip for unit 01:
#
#   coursekit/grade/gradescope/make-autograder.sh --key course.key --roster roster.csv OUTDIR
#
# OUTDIR/autograder.zip then holds, at its top level: setup.sh,
# run_autograder, coursekit (built here for linux/amd64, no cgo),
# course.key, roster.csv and public-trace.jsonl (the unit's public trace,
# to spot cards copied from the worked example). Upload it as the
# assignment's autograder ("Zip file upload", Ubuntu base image). The zip
# holds the secret key: keep it out of the repository and share it only
# with Gradescope. Set COURSEKIT_BIN to ship an already built binary.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
key="" roster="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --key) key="$2"; shift 2 ;;
    --roster) roster="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "make-autograder.sh: unknown option $1" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
if [ -z "$key" ] || [ -z "$roster" ] || [ -z "$out" ]; then
  echo "usage: make-autograder.sh --key course.key --roster roster.csv OUTDIR" >&2
  exit 2
fi
for f in "$key" "$roster"; do
  [ -f "$f" ] || { echo "make-autograder.sh: $f does not exist" >&2; exit 2; }
done

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
if [ -n "${COURSEKIT_BIN:-}" ]; then
  cp "$COURSEKIT_BIN" "$stage/coursekit"
else
  (cd "$repo" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -o "$stage/coursekit" ./coursekit/cmd/coursekit)
fi
cp "$here/setup.sh" "$here/run_autograder" "$stage/"
cp "$key" "$stage/course.key"
cp "$roster" "$stage/roster.csv"
if [ -f "$repo/data/unit01/trace.jsonl" ]; then
  cp "$repo/data/unit01/trace.jsonl" "$stage/public-trace.jsonl"
fi
chmod 0755 "$stage/setup.sh" "$stage/run_autograder" "$stage/coursekit"

# Check the key and roster now, not on Gradescope (where this binary runs).
if [ "$(uname -sm)" = "Linux x86_64" ]; then
"$stage/coursekit" grade --gradescope "$stage/check" --key-file "$stage/course.key" --roster "$stage/roster.csv" >/dev/null || true
if grep -q '"autograder_setup"' "$stage/check/results/results.json" 2>/dev/null; then
  echo "make-autograder.sh: the key or roster does not load:" >&2
  "$stage/coursekit" grade --gradescope "$stage/check" --key-file "$stage/course.key" --roster "$stage/roster.csv" >&2 || true
  exit 2
fi
rm -rf "$stage/check"
fi

mkdir -p "$out"
zipfile="$(cd "$out" && pwd)/autograder.zip"
rm -f "$zipfile"
files=(setup.sh run_autograder coursekit course.key roster.csv)
[ -f "$stage/public-trace.jsonl" ] && files+=(public-trace.jsonl)
if command -v zip >/dev/null 2>&1; then
  (cd "$stage" && zip -q -X "$zipfile" "${files[@]}")
else
  (cd "$stage" && python3 -m zipfile -c "$zipfile" "${files[@]}")
fi
echo "wrote $zipfile"

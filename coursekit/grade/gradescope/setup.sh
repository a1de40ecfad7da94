#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image;
# the autograder zip is unpacked in /autograder/source. Nothing is fetched
# from the network: the zip carries a prebuilt linux/amd64 coursekit
# binary (see make-autograder.sh), and grading never runs learner code.
set -euo pipefail
cd "$(dirname "$0")"
for f in coursekit course.key roster.csv; do
  if [ ! -f "$f" ]; then
    echo "setup.sh: $f is missing from the autograder zip; rebuild it with make-autograder.sh" >&2
    exit 1
  fi
done
install -m 0755 coursekit /usr/local/bin/coursekit
chmod 0600 course.key
coursekit version

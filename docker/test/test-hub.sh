#!/usr/bin/env bash
# `make test-hub`: a class on a real JupyterHub, on this machine, through the hub's public URL.
#   JupyterHub 5 + DockerSpawner + jupyterhub-idle-culler (docker/hub/requirements.txt, .hub/venv),
#   configurable-http-proxy (docker/hub/package.json), podman's Docker-compatible API socket, the
#   course image from `make test-image`, and docker/jupyterhub_config.py as it is: the test sets
#   only its COURSEHUB_* variables (a shared-password test authenticator, names, ports, the
#   culler's timeout).
# It proves, for two learners and an instructor (docker/test/hub/test_hub.py):
#   (a) own container from the course image, uid 1000, own named volume;
#   (b) a GoNB cell importing coursekit runs over the kernel websocket behind the proxy, offline;
#   (c) learner A gets 403 from learner B's server and shares no volume with B;
#   (d) the idle culler stops an idle server; the edited notebook is there after the next spawn;
#   (e) CPU, memory, pids limits, no capabilities: read back from podman and the cgroup;
#   (f) the learners' network is internal (no route out) and the hub is still reachable;
#   and the same in Debian's chromium: login form, a Go cell run with Shift+Enter, a 403 next door;
# then `coursekit collect` over the learners' volumes (read-only) and `coursekit grade` on its output;
# and docker/z2jh-values.yaml against the Zero to JupyterHub chart's values schema.
# Every podman object is named coursehub-test-*; all of it, the hub, the proxy and the podman
# service are removed on exit, failure included.
set -euo pipefail

cd "$(dirname "$0")/../.."
REPO=$(pwd)
IMAGE=${IMAGE:-llmperf-course-lab:latest}
PREFIX=coursehub-test
OUT="$REPO/out/test-hub"
HUB_VENV=${HUB_VENV:-$REPO/.hub/venv}
HUB_WHO=test-hub
# shellcheck source=docker/test/hub/lib.sh
. "$REPO/docker/test/hub/lib.sh"

passed=0
step() { printf '\n== test-hub: %s\n' "$*"; }
ok() { passed=$((passed + 1)); printf '   ok: %s\n' "$*"; }
fail() { hub_die "$*"; }

cleanup() {
  local rc=$?
  hub_cleanup
  left=$( { podman ps -a --format '{{.Names}}'; podman volume ls --format '{{.Name}}'; podman network ls --format '{{.Name}}'; } 2>/dev/null | grep "^$PREFIX-" || true)
  [ -z "$left" ] || { echo "test-hub: left behind: $left" >&2; rc=1; }
  if [ "$rc" = 0 ]; then
    echo "test-hub: $passed passed, 0 failed"
  else
    echo "test-hub: FAILED (exit $rc) after $passed passed checks; logs in $OUT" >&2
    echo "test-hub: $passed passed, 1 failed"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$OUT"
mkdir -p "$OUT/run"
hub_cleanup 2>/dev/null   # leftovers of an earlier run that was killed
HUB_PIDS=()

# --- 1. the Kubernetes path: values file against the chart's schema ----------------------------
step "docker/z2jh-values.yaml against the Zero to JupyterHub chart's values.schema.json"
"$HUB_VENV/bin/python" docker/test/hub/z2jh_test.py || fail "docker/z2jh-values.yaml (docker/test/hub/z2jh_test.py)"
ok "z2jh values validate; broken copies are rejected; the course settings are in them"
"$HUB_VENV/bin/python" docker/test/hub/prod_config_check.py docker/jupyterhub_config.py || fail "the production settings of docker/jupyterhub_config.py"
ok "docker/jupyterhub_config.py without test variables: the production authenticator"

# --- 2. engine, network, hub ---------------------------------------------------------------------
step "podman system service, internal network $PREFIX-net, jupyterhub -f docker/jupyterhub_config.py"
hub_engine
hub_network
ok "podman API on its own socket; network $HUB_NET internal, gateway $HUB_GATEWAY"

export IMAGE PREFIX HUB_NET
export COURSEHUB_LEARNERS=alice,bob COURSEHUB_INSTRUCTORS=teacher
export COURSEHUB_TEST_USER_PASSWORD="learner-pw-$RANDOM$RANDOM"
export COURSEHUB_TEST_ADMIN_PASSWORD="instructor-pw-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export COURSEHUB_CPU_LIMIT=${COURSEHUB_CPU_LIMIT:-1.5} COURSEHUB_MEM_LIMIT=${COURSEHUB_MEM_LIMIT:-1536M}
hub_start COURSEHUB_CULL_TIMEOUT=3600 COURSEHUB_ACTIVITY_INTERVAL=300
export HUB_URL HUB_LOG
grep -q "Using Authenticator: jupyterhub.authenticators.shared.SharedPasswordAuthenticator" "$HUB_LOG" \
  || fail "the hub does not use the test authenticator (log: $HUB_LOG)"
ok "hub at $HUB_URL (loopback), hub API on $HUB_GATEWAY, test authenticator from COURSEHUB_TEST_* only"

# --- 3. learners, isolation, limits, network ---------------------------------------------------
step "two learners and an instructor through $HUB_URL"
(cd docker/test/hub && nice -n 5 "$HUB_VENV/bin/python" test_hub.py spawn) || fail "docker/test/hub/test_hub.py spawn (hub log: $HUB_LOG)"
passed=$((passed + 1))
step "the learner's browser: Debian's chromium logs in, runs a Go cell in JupyterLab, gets 403 next door"
HUB_URL=$HUB_URL LEARNER=alice OTHER=bob PASSWORD=$COURSEHUB_TEST_USER_PASSWORD NOTEBOOK=hub-browser.ipynb \
  SHOTS="$OUT/screenshots" nice -n 5 node docker/test/hub/browser.mjs || fail "docker/test/hub/browser.mjs"
passed=$((passed + 1))

# --- 4. the instructor: collect from the volumes, then grade ------------------------------------
step "coursekit collect --volumes '$PREFIX-{username}' then coursekit grade"
go build -o "$OUT/coursekit" ./coursekit/cmd/coursekit
printf 'id\nalice\nbob\ncarol\n' >"$OUT/roster.csv"
head -c 32 /dev/urandom >"$OUT/course.key"
snap() { # what is in a learner's volume: path, type, mode, owner, size, mtime, content hash
  local mp; mp=$(podman volume inspect --format '{{.Mountpoint}}' "$1")
  (cd "$mp" && find . -printf '%p %y %m %U %s %T@\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
snap "$PREFIX-alice" >"$OUT/alice-before.txt"; snap "$PREFIX-bob" >"$OUT/bob-before.txt"
"$OUT/coursekit" collect --volumes "$PREFIX-{username}" --roster "$OUT/roster.csv" --out "$OUT/collected" \
  >"$OUT/collect.log" 2>"$OUT/collect.err" || { cat "$OUT/collect.log" "$OUT/collect.err"; fail "coursekit collect failed"; }
cat "$OUT/collect.log" "$OUT/collect.err" | sed 's/^/   /'
for u in alice bob; do
  grep -q "\"note-$u\"" "$OUT/collected/$u.ipynb" || fail "collected/$u.ipynb is not $u's notebook"
done
grep -q 'on the roster with no volume or directory: carol' "$OUT/collect.err" || fail "collect did not report carol (no volume)"
snap "$PREFIX-alice" | cmp -s - "$OUT/alice-before.txt" || fail "collect changed alice's volume"
snap "$PREFIX-bob" | cmp -s - "$OUT/bob-before.txt" || fail "collect changed bob's volume"
ok "collect: alice.ipynb and bob.ipynb are each learner's own notebook; carol reported; both volumes unchanged (paths, modes, owners, mtimes, contents)"
"$OUT/coursekit" grade --key-file "$OUT/course.key" --roster "$OUT/roster.csv" --out "$OUT/graded" "$OUT/collected" \
  >"$OUT/grade.log" 2>&1 || { cat "$OUT/grade.log"; fail "coursekit grade on the collected folder failed"; }
tail -3 "$OUT/grade.log" | sed 's/^/   /'
python3 - "$OUT/graded/grades.csv" <<'EOF' || fail "grades.csv is not what the collected folder holds"
import csv, sys
rows = {r["id"]: r for r in csv.DictReader(open(sys.argv[1], encoding="utf-8-sig"))}  # a BOM first, for Excel
assert set(rows) == {"alice", "bob", "carol"}, rows.keys()
assert rows["carol"]["status"] == "no submission", rows["carol"]
for u in ("alice", "bob"):
    assert rows[u]["status"] != "no submission" and rows[u]["max"], rows[u]
print("   grades.csv:", "; ".join(f'{u}: {rows[u]["total"] or "-"}/{rows[u]["max"] or "-"} {rows[u]["status"]}' for u in sorted(rows)))
EOF
ok "grade on the collected folder: one row per learner from their own file, carol 'no submission'"

# --- 5. the idle culler ----------------------------------------------------------------------------
step "restart the hub with a short idle timeout: the culler stops an idle server, the work stays"
hub_stop
for u in alice bob; do
  for i in $(seq 1 30); do podman container exists "$PREFIX-$u" || break; sleep 1; done
  podman container exists "$PREFIX-$u" && fail "stopping the hub left $PREFIX-$u running"
done
ok "hub stopped: it stopped both servers, containers removed, volumes kept"
export COURSEHUB_CULL_TIMEOUT=20
hub_start COURSEHUB_CULL_TIMEOUT=20 COURSEHUB_CULL_EVERY=5 COURSEHUB_ACTIVITY_INTERVAL=5
export HUB_URL HUB_LOG
(cd docker/test/hub && nice -n 5 "$HUB_VENV/bin/python" test_hub.py cull) || fail "docker/test/hub/test_hub.py cull (hub log: $HUB_LOG)"
passed=$((passed + 1))
grep -E 'jupyterhub-singleuser version|version .* != ' "$OUT"/hub-*.log | sed -n 1p | sed 's/^/   note: /' || true

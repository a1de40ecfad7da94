#!/usr/bin/env bash
# `make test-image`: builds docker/Dockerfile UNCHANGED with podman from local stand-ins of its
# base images (no container registry needed), then checks the image for real:
#   - the user is not root; the kernelspec is found with a volume mounted over the home dir;
#   - every notebook under notebooks/ executes inside the container with --network none
#     (docker/nbrun.py fails on any error/panic/exit-status output: that it fails a panicking
#     cell in this image is shown by test-grade-execute.sh's learner frank);
#   - first-cell latency of a fresh kernel, offline;
#   - JupyterLab answers on 127.0.0.1, refuses API requests without the token, accepts them with
#     the token printed in its log, and starts the gonb kernel;
#   - `podman-compose -f docker/compose.yaml up -d` serves JupyterLab on 127.0.0.1 too;
#   - `coursekit grade --execute` re-runs submissions in the image (docker/test/test-grade-execute.sh).
# Prints the image size, build time and timings, and writes them to out/test-image/report.txt.
# Fails loudly on anything it cannot do; it never skips.
#
# Environment:
#   COLD=1            build with --no-cache (a cold build; the base stand-ins are kept)
#   IMAGE             tag to build (default llmperf-course-lab:latest, the name compose uses)
#   LAB_PORT          host port for the compose check (default 8888, or a free one if busy)
#   MAX_IMAGE_MB      fail above this image size (default 1536)
#   MAX_FIRST_CELL_S  fail above this first-cell latency (default 2.0)
set -euo pipefail

cd "$(dirname "$0")/../.."
REPO=$(pwd)
IMAGE=${IMAGE:-llmperf-course-lab:latest}
MAX_IMAGE_MB=${MAX_IMAGE_MB:-1536}
MAX_FIRST_CELL_S=${MAX_FIRST_CELL_S:-2.0}
OUT="$REPO/out/test-image"
RUN_ID="ti$$"
CTR="llmperf-test-lab-$RUN_ID"
PROJECT="llmperf-test-$RUN_ID"
COMPOSE_FILE=docker/compose.yaml
CONF_DROPIN=/etc/containers/containers.conf.d/50-llmperf-course.conf
USER_HOME=/home/learner
WORK_DIR=/home/learner/work

mkdir -p "$OUT"
REPORT="$OUT/report.txt"
: >"$REPORT"

step() { printf '\n== test-image: %s\n' "$*"; }
passed=0
ok() { passed=$((passed + 1)); printf '   ok: %s\n' "$*"; }
fail() { printf '\ntest-image: FAIL: %s\n' "$*" >&2; exit 1; }
report() { printf '%s\n' "$*" | tee -a "$REPORT"; }

# --- cleanup: everything this run started, by name ------------------------------------------
volumes=()
tmp_dirs=()
compose_up=0
cleanup() {
  local rc=$?
  set +e
  podman rm -f -t 2 "$CTR" >/dev/null 2>&1
  if [ "$compose_up" = 1 ]; then
    LAB_PORT=${compose_port:-8888} podman-compose -p "$PROJECT" -f "$COMPOSE_FILE" down >/dev/null 2>&1
    podman volume rm -f "${PROJECT}_work" >/dev/null 2>&1
  fi
  for v in "${volumes[@]}"; do podman volume rm -f "$v" >/dev/null 2>&1; done
  for d in "${tmp_dirs[@]}"; do rm -rf "$d"; done
  if [ "$rc" = 0 ]; then
    echo "test-image: $passed passed, 0 failed"
  else
    echo "test-image: FAILED (exit $rc) after $passed passed checks; see the output above, logs in $OUT" >&2
    echo "test-image: $passed passed, 1 failed"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1. podman and its configuration --------------------------------------------------------
step "podman"
[ "$(id -u)" = 0 ] || fail "run as root: the verified podman setup is rootful (see docker/host-setup.sh)"
# Packages and podman's configuration on these machines (runc, no default ulimits): one script,
# shared with `make test` and CI, that installs only what is missing.
bash docker/host-setup.sh image
podman --version
runtime=$(podman info --format '{{.Host.OCIRuntime.Name}}')
[ "$runtime" = runc ] || fail "podman uses runtime '$runtime', want runc (check $CONF_DROPIN)"
ok "podman runtime $runtime, default ulimits dropped"

# --- 2. stand-ins of the base images ---------------------------------------------------------
step "base image stand-ins"
bash docker/test/standins.sh
for img in docker.io/library/debian:bookworm-slim docker.io/library/golang:1.26-bookworm docker.io/library/node:20-bookworm-slim; do
  grep -q "FROM ${img#docker.io/library/}" docker/Dockerfile || fail "docker/Dockerfile no longer uses $img: update docker/test/standins.sh"
done

# --- 3. build docker/Dockerfile unchanged ------------------------------------------------------
step "podman build -f docker/Dockerfile (context: repo root) -> $IMAGE"
build_args=()
# Build-time settings of this machine, passed as build args (never written into a file).
gp=$(go env GOPROXY 2>/dev/null || true)
[ -n "$gp" ] && build_args+=(--build-arg "BUILD_GOPROXY=$gp")
pip_get() { # pip setting from the environment or pip's config files
  local env=$1 key=$2 v
  v=$(printenv "$env" || true)
  if [ -z "$v" ] && command -v pip3 >/dev/null; then v=$(pip3 config get "global.$key" 2>/dev/null || true); fi
  printf '%s' "$v"
}
for pair in PIP_INDEX_URL:index-url PIP_EXTRA_INDEX_URL:extra-index-url PIP_TRUSTED_HOST:trusted-host \
            PIP_DEFAULT_TIMEOUT:default-timeout; do
  v=$(pip_get "${pair%%:*}" "${pair#*:}")
  [ -n "$v" ] && build_args+=(--build-arg "${pair%%:*}=$v")
done
# pip here trusts the system CA bundle (which holds the machine's extra CAs, also added to the
# stand-ins): make pip in the build use the image's system bundle as well.
[ -n "$(pip_get PIP_CERT cert)" ] && build_args+=(--build-arg "PIP_CERT=/etc/ssl/certs/ca-certificates.crt")
# npm (the extension build): the machine's registry setting, and its CA bundle as the stand-in carries it.
if command -v npm >/dev/null; then
  v=$(npm config get registry 2>/dev/null || true)
  [ -n "$v" ] && [ "$v" != "https://registry.npmjs.org/" ] && build_args+=(--build-arg "NPM_CONFIG_REGISTRY=$v")
  v=$(npm config get cafile 2>/dev/null || true)
  [ -n "$v" ] && [ "$v" != null ] && build_args+=(--build-arg "NPM_CONFIG_CAFILE=/etc/ssl/certs/ca-certificates.crt")
fi
no_cache=()
[ "${COLD:-0}" = 1 ] && no_cache=(--no-cache)
echo "   build args: ${build_args[*]:-(none)} ${no_cache[*]:-}"
t0=$(date +%s)
if ! podman build --pull=never "${no_cache[@]}" "${build_args[@]}" -f docker/Dockerfile -t "$IMAGE" . \
      2>&1 | tee "$OUT/build.log"; then
  fail "podman build failed (log: $OUT/build.log)"
fi
build_s=$(( $(date +%s) - t0 ))
cached=$(grep -c -- '--> Using cache' "$OUT/build.log" || true)
if [ "${COLD:-0}" = 1 ]; then build_kind="cold (--no-cache)"; elif [ "$cached" = 0 ]; then build_kind="cold (no layer reused)"; else build_kind="$cached layers from cache"; fi
report "build time: ${build_s} s, ${build_kind}"

size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
size_mb=$(( size / 1000000 ))
report "image size: ${size_mb} MB ($size bytes, podman image inspect --format '{{.Size}}' $IMAGE)"
[ "$size_mb" -le "$MAX_IMAGE_MB" ] || fail "image is ${size_mb} MB, above the ${MAX_IMAGE_MB} MB limit"
ok "image size ${size_mb} MB <= ${MAX_IMAGE_MB} MB"

# --- 4. user and kernelspec --------------------------------------------------------------------
step "non-root user"
uid=$(podman run --rm --network none "$IMAGE" id -u)
user=$(podman run --rm --network none "$IMAGE" id -un)
[ "$uid" != 0 ] || fail "the container runs as root"
ok "runs as $user (uid $uid)"

step "kernelspec with a volume mounted over $USER_HOME"
vol="llmperf-test-home-$RUN_ID"; volumes+=("$vol")
podman volume create "$vol" >/dev/null
specs=$(podman run --rm --network none -v "$vol:$USER_HOME" "$IMAGE" jupyter kernelspec list)
echo "$specs"
grep -Eq '^ *gonb +/usr/local/share/jupyter/kernels/gonb$' <<<"$specs" || fail "gonb kernelspec not found system-wide with a volume over $USER_HOME"
# An empty host directory over the home dir (nothing of the image's home left), owned by the learner.
home_dir=$(mktemp -d "${TMPDIR:-/tmp}/llmperf-test-home.XXXXXX"); tmp_dirs+=("$home_dir")
chown "$uid" "$home_dir"
specs=$(podman run --rm --network none -v "$home_dir:$USER_HOME" "$IMAGE" sh -c 'jupyter kernelspec list; ls -d '"$WORK_DIR"'/notebooks')
grep -Eq '^ *gonb +/usr/local/share/jupyter/kernels/gonb$' <<<"$specs" || fail "gonb kernelspec not found with an empty directory over $USER_HOME"
grep -q "^$WORK_DIR/notebooks$" <<<"$specs" || fail "the entrypoint did not seed $WORK_DIR in an empty home dir: $specs"
ok "gonb kernelspec found in /usr/local/share/jupyter with a named volume and with an empty host dir over $USER_HOME (work dir seeded)"
specs_only=$(grep -E '^ +[A-Za-z0-9_.-]+ +/' <<<"$specs" | awk '{print $1}' | sort | tr '\n' ' ')
[ "$specs_only" = "gonb " ] || fail "the image offers other kernels than gonb: $specs_only"
ok "gonb is the only kernelspec (no Python 3 kernel in the launcher)"

step "the course's JupyterLab extension, Chinese UI, lab configuration"
exts=$(podman run --rm --network none "$IMAGE" jupyter labextension list 2>&1)
echo "$exts" | sed 's/^/   /'
grep -Eq 'coursekit-jupyterlab v[0-9.]+ .*enabled.*OK' <<<"$exts" || fail "jupyter labextension list does not show coursekit-jupyterlab enabled OK"
ok "coursekit-jupyterlab (charts from data) is installed as a prebuilt extension, enabled OK"
podman run --rm --network none "$IMAGE" python3 -c '
import importlib.metadata as m, sys
sys.exit("zh_CN" not in [e.name for e in m.entry_points(group="jupyterlab.languagepack")])' || fail "the zh-CN language pack is not installed"
podman run --rm --network none "$IMAGE" python3 -c '
import json, sys
o = json.load(open("/opt/coursekit/venv/share/jupyter/lab/settings/overrides.json"))
sys.exit(o["@jupyterlab/translation-extension:plugin"]["locale"] != "zh_CN")' || fail "zh_CN is not the default locale"
ok "zh-CN language pack installed, zh_CN the default locale"
cfg=$(podman run --rm --network none -e COURSE_KERNEL_IDLE_TIMEOUT=600 "$IMAGE" python3 -c '
from traitlets.config.loader import PyFileConfigLoader
c = PyFileConfigLoader("jupyter_server_config.py", path="/opt/coursekit/venv/etc/jupyter").load_config()
k = c.MappingKernelManager
print(k.cull_idle_timeout, k.cull_connected, c.LabApp.notebook_starts_kernel, sorted(c.KernelSpecManager.allowed_kernelspecs))')
[ "$cfg" = "600 True False ['gonb']" ] || fail "lab configuration in the image: $cfg"
ok "lab configuration: idle kernels culled (COURSE_KERNEL_IDLE_TIMEOUT honoured), no kernel per restored tab, gonb only"

# --- 5. notebooks, offline ------------------------------------------------------------------------
step "execute every notebook under notebooks/ inside the container, --network none"
nb_count=$(find notebooks -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' | wc -l)
[ "$nb_count" -gt 0 ] || fail "no notebooks under notebooks/"
t0=$(date +%s.%N)
# nbrun.py executes; then a scan of the executed copies: with charts drawn offline, no output may
# load a script or stylesheet from the network (a CDN).
if ! podman run --rm -i --network none "$IMAGE" \
      sh -c 'python3 /opt/coursekit/nbrun.py --out /tmp/executed "$0/notebooks" && python3 - /tmp/executed' "$WORK_DIR" \
      >"$OUT/notebooks.log" 2>&1 <<'EOF'; then
import json, pathlib, re, sys
remote = re.compile(r"""<(script|link)\b[^>]*\b(src|href)\s*=\s*["']?(https?:)?//""", re.I)
bad = 0
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.ipynb")):
    for i, cell in enumerate(json.loads(path.read_text()).get("cells", [])):
        for out in cell.get("outputs", []):
            for mime, val in out.get("data", {}).items():
                text = "".join(val) if isinstance(val, list) else str(val)
                if mime in ("text/html", "application/javascript", "text/javascript") and remote.search(text):
                    print(f"FAIL {path}: cell {i}: {mime} output loads from the network: {remote.search(text).group(0)}")
                    bad += 1
sys.exit(1 if bad else print("no output loads a script or stylesheet from the network"))
EOF
  cat "$OUT/notebooks.log"
  fail "notebook execution failed inside the container (log: $OUT/notebooks.log)"
fi
cat "$OUT/notebooks.log"
nb_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
grep -q "nbrun: $nb_count passed, 0 failed" "$OUT/notebooks.log" \
  || fail "expected 'nbrun: $nb_count passed, 0 failed' (the image holds the notebooks it was built with: rebuild?)"
report "notebooks: $nb_count executed offline in ${nb_s} s (podman run --rm --network none ... nbrun.py, container start included)"
grep -E '^ *whole notebook|^== ' "$OUT/notebooks.log" | sed 's/^/   /' | tee -a "$REPORT"

step "the real engine: offline, as the learner, bound to 127.0.0.1 only, Ctrl-C stops it"
# /proc/net/tcp{,6} list every listening socket (state 0A) of the container: all must be 127.0.0.1.
t0=$(date +%s.%N)
if ! podman run --rm --network none "$IMAGE" sh -c '
    course-engine --port 8090 >/tmp/engine.out 2>/tmp/engine.err & pid=$!
    i=0; until grep -q "engine: ready" /tmp/engine.out; do
      i=$((i + 1)); [ $i -le 1200 ] && kill -0 $pid 2>/dev/null || { cat /tmp/engine.err; exit 1; }; sleep 0.1; done
    cat /tmp/engine.out; echo "user $(id -un)"
    python3 -c "import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:8090/v1/models\").read().decode()[:60])"
    awk "FNR > 1 && \$4 == \"0A\" { print \"listen\", \$2 }" /proc/net/tcp /proc/net/tcp6
    kill -INT $pid; wait $pid; echo "engine exit $?"' >"$OUT/engine.log" 2>&1; then
  cat "$OUT/engine.log"; fail "the engine did not start in the image (log: $OUT/engine.log)"
fi
cat "$OUT/engine.log" | sed 's/^/   /'
grep -q '^engine: ready on http://127.0.0.1:8090' "$OUT/engine.log" || fail "no ready line from the engine"
grep -q '^user learner$' "$OUT/engine.log" || fail "the engine did not run as the learner"
grep -q '"smollm2-135m"' "$OUT/engine.log" || fail "/v1/models does not name smollm2-135m"
grep -q '^engine exit 0$' "$OUT/engine.log" || fail "the engine did not exit 0 on SIGINT"
bad=$(grep '^listen ' "$OUT/engine.log" | grep -v ' 0100007F:' || true)
[ -z "$bad" ] && grep -q '^listen 0100007F:1F9A' "$OUT/engine.log" || fail "the engine listens beyond 127.0.0.1:8090: $bad"
engine_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
report "engine: ready offline in the image, 127.0.0.1 only; container start to stop ${engine_s} s ($(grep -o 'loaded in [0-9.]* s' "$OUT/engine.log"))"
ok "the real engine runs offline as the learner on 127.0.0.1 only"

# --- 6. first-cell latency ----------------------------------------------------------------------
step "first-cell latency of a fresh kernel, --network none (3 fresh kernels)"
podman run --rm --network none -i "$IMAGE" python3 - >"$OUT/latency.log" 2>&1 <<'EOF' || { cat "$OUT/latency.log"; fail "latency probe failed"; }
import subprocess, time
from jupyter_client.manager import start_new_kernel
CELL = 'import "github.com/llmperf-course/course/coursekit"\n%%\nfmt.Println("coursekit", coursekit.Version)'
for run in range(3):
    t0 = time.perf_counter()
    km, kc = start_new_kernel(kernel_name="gonb", stderr=subprocess.DEVNULL)
    t1 = time.perf_counter()
    out, status = [], None
    def hook(msg):
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        if msg["msg_type"] == "error":
            out.append("ERROR " + msg["content"].get("evalue", ""))
    reply = kc.execute_interactive(CELL, timeout=120, output_hook=hook)
    t2 = time.perf_counter()
    reply2 = kc.execute_interactive('%%\nfmt.Println("second")', timeout=120, output_hook=hook)
    t3 = time.perf_counter()
    kc.stop_channels(); km.shutdown_kernel(now=True)
    text = "".join(out).strip().replace("\n", " | ")
    status = reply["content"]["status"]
    print(f"run {run}: kernel start {t1-t0:.2f} s, first cell {t2-t1:.2f} s, second cell {t3-t2:.2f} s, status {status}, output: {text}")
    if status != "ok" or "coursekit" not in text:
        raise SystemExit("first cell failed: " + text)
EOF
grep -E '^run [0-9]' "$OUT/latency.log" | sed 's/^/   /'
first=$(sed -n 's/^run 0: .*first cell \([0-9.]*\) s.*/\1/p' "$OUT/latency.log")
best=$(sed -n 's/.*first cell \([0-9.]*\) s.*/\1/p' "$OUT/latency.log" | sort -n | sed -n 1p)
[ -n "$first" ] || fail "no latency measured"
report "first cell (import coursekit; print Version) of a fresh kernel, offline: ${first} s on the first kernel, best of 3 ${best} s"
awk -v a="$first" -v m="$MAX_FIRST_CELL_S" 'BEGIN { exit !(a <= m) }' || fail "first cell took ${first} s, above ${MAX_FIRST_CELL_S} s"
ok "first cell ${first} s <= ${MAX_FIRST_CELL_S} s"

# --- 7. JupyterLab over HTTP, token auth ---------------------------------------------------------
free_port() { # first free TCP port on 127.0.0.1 from $1
  local p=$1
  while (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}
wait_token() { # wait_token CONTAINER -> prints the token from the container's log
  local c=$1 i tok
  for i in $(seq 1 90); do
    tok=$(podman logs "$c" 2>&1 || true)
    tok=$(grep -oE 'token=[0-9a-f]+' <<<"$tok" | sed -n '1s/^token=//p' || true)
    if [ -n "$tok" ]; then echo "$tok"; return 0; fi
    if [ "$(podman inspect --format '{{.State.Running}}' "$c" 2>/dev/null)" != true ]; then
      podman logs "$c" >&2 || true; return 1
    fi
    sleep 1
  done
  podman logs "$c" >&2 || true
  return 1
}
http_code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 --retry 3 --retry-delay 1 --retry-connrefused "$@" || true; } # a timeout reads 000 in the check's message, not exit 28
check_lab() { # check_lab PORT TOKEN LABEL
  local port=$1 tok=$2 what=$3 code body
  code=$(http_code "http://127.0.0.1:$port/api/contents")
  case "$code" in 401|403) ;; *) fail "$what: GET /api/contents without a token answered $code, want 403/401";; esac
  ok "$what: /api/contents without token -> $code"
  code=$(http_code "http://127.0.0.1:$port/lab")
  case "$code" in 302|401|403) ;; *) fail "$what: GET /lab without a token answered $code, want a redirect to login";; esac
  ok "$what: /lab without token -> $code"
  code=$(http_code "http://127.0.0.1:$port/api/contents?token=wrong$tok")
  case "$code" in 401|403) ;; *) fail "$what: a wrong token answered $code";; esac
  body=$(curl -sf --max-time 10 -H "Authorization: token $tok" "http://127.0.0.1:$port/api/contents") \
    || fail "$what: GET /api/contents with the token failed"
  grep -q '"name": *"notebooks"' <<<"$body" || fail "$what: the work dir lists no notebooks/ folder: $body"
  ok "$what: /api/contents with token -> 200, lists notebooks/"
  code=$(http_code "http://127.0.0.1:$port/lab?token=$tok")
  [ "$code" = 200 ] || fail "$what: /lab?token=... answered $code"
  ok "$what: /lab with token -> 200"
  body=$(curl -sf --max-time 10 -H "Authorization: token $tok" "http://127.0.0.1:$port/api/kernelspecs") \
    || fail "$what: GET /api/kernelspecs with the token failed"
  grep -q '"gonb"' <<<"$body" || fail "$what: /api/kernelspecs has no gonb: $body"
  ok "$what: /api/kernelspecs lists gonb"
  body=$(curl -sf --max-time 10 -H "Authorization: token $tok" "http://127.0.0.1:$port/lab/api/translations/zh_CN") \
    || fail "$what: GET /lab/api/translations/zh_CN failed"
  grep -q '"jupyterlab"' <<<"$body" || fail "$what: the lab serves no zh_CN translation: ${body:0:200}"
  ok "$what: the lab serves its zh_CN translation"
}

step "podman run: JupyterLab on 127.0.0.1 with token auth"
port=$(free_port 18888)
podman run -d --name "$CTR" -p "127.0.0.1:$port:8888" "$IMAGE" >/dev/null
token=$(wait_token "$CTR") || fail "JupyterLab did not print a token URL within 90 s"
lab_log=$(podman logs "$CTR" 2>&1)
grep -m1 -E 'http://127\.0\.0\.1:8888/lab\?token=' <<<"$lab_log" | sed 's/token=[0-9a-f]*/token=<token>/;s/^/   log: /' || true
for i in $(seq 1 30); do [ "$(http_code "http://127.0.0.1:$port/api/status?token=$token")" = 200 ] && break; sleep 1; done
check_lab "$port" "$token" "podman run"
# Through the served lab (REST + websocket, as the browser does): start a gonb kernel, run a Go
# cell that imports coursekit, check its output, delete the kernel. Runs inside the container,
# with the websocket client from the image's venv.
podman exec -i "$CTR" python3 - "$token" >"$OUT/lab-kernel.log" 2>&1 <<'EOF' || { cat "$OUT/lab-kernel.log"; podman logs "$CTR" 2>&1 | tail -20; fail "running a cell through the served lab failed"; }
import json, sys, time, urllib.request, uuid
from websocket import create_connection
tok, base = sys.argv[1], "127.0.0.1:8888"
hdr = {"Authorization": "token " + tok, "Content-Type": "application/json"}
def api(method, path, body=None):
    req = urllib.request.Request(f"http://{base}{path}", data=body, headers=hdr, method=method)
    with urllib.request.urlopen(req, timeout=30) as r:
        data = r.read()
        return json.loads(data) if data else None
t0 = time.perf_counter()
kid = api("POST", "/api/kernels", b'{"name": "gonb"}')["id"]
ws = create_connection(f"ws://{base}/api/kernels/{kid}/channels", header=["Authorization: token " + tok], timeout=120)
msg_id, session = uuid.uuid4().hex, uuid.uuid4().hex
code = 'import "github.com/llmperf-course/course/coursekit"\n%%\nfmt.Println("lab says coursekit", coursekit.Version)'
ws.send(json.dumps({
    "header": {"msg_id": msg_id, "username": "test", "session": session, "msg_type": "execute_request",
               "version": "5.3", "date": ""},
    "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
    "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                "allow_stdin": False, "stop_on_error": True}}))
out, status, idle = [], None, False
deadline = time.time() + 120
while time.time() < deadline and not (status and idle):
    m = json.loads(ws.recv())
    if m.get("parent_header", {}).get("msg_id") != msg_id:
        continue
    t = m["msg_type"]
    if t == "stream":
        out.append(m["content"]["text"])
    elif t == "error":
        out.append("ERROR " + m["content"].get("evalue", ""))
    elif t == "execute_reply":
        status = m["content"]["status"]
    elif t == "status" and m["content"]["execution_state"] == "idle":
        idle = True
ws.close()
api("DELETE", f"/api/kernels/{kid}")
text = "".join(out).strip()
print(f"kernel start + first cell through the lab: {time.perf_counter() - t0:.2f} s, status {status}, output: {text}")
if status != "ok" or "lab says coursekit" not in text:
    sys.exit("unexpected result")
EOF
sed 's/^/   /' "$OUT/lab-kernel.log"
ok "the lab ran a Go cell importing coursekit on a new gonb kernel (websocket), then deleted the kernel"
podman exec "$CTR" sh -c "ls $WORK_DIR/notebooks >/dev/null && test -s $WORK_DIR/.course-seeded" \
  || fail "the work dir was not seeded with the notebooks"
ok "work dir seeded: $(podman exec "$CTR" sh -c "find $WORK_DIR -name '*.ipynb' | wc -l") notebook(s) in $WORK_DIR"
podman rm -f -t 2 "$CTR" >/dev/null

# --- 8. compose ------------------------------------------------------------------------------------
step "podman-compose -f $COMPOSE_FILE up -d"
compose_port=${LAB_PORT:-8888}
if (echo >"/dev/tcp/127.0.0.1/$compose_port") 2>/dev/null; then
  compose_port=$(free_port 18900)
  echo "   port 8888 is busy: LAB_PORT=$compose_port"
fi
# The image tagged $IMAGE above is the one compose names, so `up` uses it instead of building again.
grep -q "image: ${IMAGE}$" "$COMPOSE_FILE" || fail "$COMPOSE_FILE does not name image $IMAGE"
# compose's own build section (context .., dockerfile docker/Dockerfile) gives the very same image
# (all layers from the cache) when given this machine's build args.
image_id=$(podman image inspect --format '{{.Id}}' "$IMAGE")
podman-compose -p "$PROJECT" -f "$COMPOSE_FILE" build "${build_args[@]}" >"$OUT/compose-build.log" 2>&1 \
  || { tail -20 "$OUT/compose-build.log"; fail "podman-compose build failed"; }
compose_id=$(podman image inspect --format '{{.Id}}' "$IMAGE")
if [ "$compose_id" = "$image_id" ]; then
  ok "podman-compose build (context .., dockerfile docker/Dockerfile) = the tested image ${image_id:0:12}"
elif [ "${COLD:-0}" = 1 ]; then
  # A --no-cache build leaves no cache entries for its COPY steps, so compose rebuilt from there.
  ok "podman-compose build (context .., dockerfile docker/Dockerfile) built ${compose_id:0:12} (after a --no-cache build, COPY steps are rebuilt); compose runs that image"
else
  fail "podman-compose build made another image than podman build -f docker/Dockerfile . (log: $OUT/compose-build.log)"
fi
compose_up=1
LAB_PORT=$compose_port podman-compose -p "$PROJECT" -f "$COMPOSE_FILE" up -d >"$OUT/compose-up.log" 2>&1 \
  || { cat "$OUT/compose-up.log"; fail "podman-compose up -d failed"; }
cctr=$(podman ps --filter "label=io.podman.compose.project=$PROJECT" --format '{{.Names}}' | sed -n 1p)
[ -n "$cctr" ] || { cat "$OUT/compose-up.log"; fail "podman-compose started no container"; }
binding=$(podman port "$cctr" 8888/tcp)
[ "$binding" = "127.0.0.1:$compose_port" ] || fail "compose published 8888 on '$binding', want 127.0.0.1:$compose_port only"
ok "container $cctr publishes 8888 on $binding"
ctoken=$(wait_token "$cctr") || fail "compose: JupyterLab did not print a token URL within 90 s"
for i in $(seq 1 30); do [ "$(http_code "http://127.0.0.1:$compose_port/api/status?token=$ctoken")" = 200 ] && break; sleep 1; done
check_lab "$compose_port" "$ctoken" "compose"
podman volume exists "${PROJECT}_work" || fail "compose did not create the named volume ${PROJECT}_work"
# The learner's work survives down + up: an edited notebook is not overwritten by the seeding,
# a deleted one does not come back, a new file stays.
first_nb=$(podman exec "$cctr" sh -c "cd $WORK_DIR && find notebooks -name '*.ipynb' | sort | sed -n 1p")
[ -n "$first_nb" ] || fail "compose: no notebook seeded in $WORK_DIR"
podman exec "$cctr" sh -c "cd $WORK_DIR && echo ' ' >>'$first_nb' && echo kept >mine.txt && md5sum '$first_nb' >.edit.md5" \
  || fail "compose: cannot write to $WORK_DIR"
LAB_PORT=$compose_port podman-compose -p "$PROJECT" -f "$COMPOSE_FILE" down >>"$OUT/compose-up.log" 2>&1 \
  || fail "podman-compose down failed"
ok "podman-compose down"
LAB_PORT=$compose_port podman-compose -p "$PROJECT" -f "$COMPOSE_FILE" up -d >>"$OUT/compose-up.log" 2>&1 \
  || { cat "$OUT/compose-up.log"; fail "podman-compose up -d (second time) failed"; }
cctr=$(podman ps --filter "label=io.podman.compose.project=$PROJECT" --format '{{.Names}}' | sed -n 1p)
[ -n "$cctr" ] || fail "podman-compose started no container the second time"
wait_token "$cctr" >/dev/null || fail "compose: JupyterLab did not restart"
podman exec "$cctr" sh -c "cd $WORK_DIR && md5sum -c --quiet .edit.md5 && grep -qx kept mine.txt" \
  || fail "compose: the learner's edits in $WORK_DIR did not survive down + up"
ok "learner work on named volume ${PROJECT}_work survives down + up (edited notebook kept, not re-seeded)"
LAB_PORT=$compose_port podman-compose -p "$PROJECT" -f "$COMPOSE_FILE" down >>"$OUT/compose-up.log" 2>&1 \
  || fail "podman-compose down failed"

# --- 9. grading with --execute in this image ------------------------------------------------------
step "coursekit grade --execute: submissions re-run in the image, offline, locked cells restored"
IMAGE="$IMAGE" OUT="$OUT" bash docker/test/test-grade-execute.sh || fail "grade --execute (docker/test/test-grade-execute.sh)"
report "$(grep '^executed ' "$OUT/grade-execute/grade.log") (coursekit grade --execute --jobs 2)"
ok "grade --execute: each learner's execution result as expected; a hang and a panic marked only their own submission; a notebook never run graded from its re-run"

step "summary ($REPORT)"
cat "$REPORT"

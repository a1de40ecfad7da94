#!/usr/bin/env bash
# Install the GoNB kernelspec so that every new kernel resolves this repo's module
# (and, through its go.mod, the pinned gonbui/gota/go-echarts) with no setup cell.
# Used by `make lab-setup` and by the image build; idempotent.
#
# Environment (in):
#   GOBIN           dir holding gonb, goimports and (optional) gopls       [required]
#   KERNEL_PREFIX   a Jupyter data dir; the spec goes to $KERNEL_PREFIX/kernels/gonb [required]
#   REPO_DIR        absolute repo root, passed as `gonb --install -go_work=$REPO_DIR` [required]
#   KERNEL_GOPROXY  GOPROXY for the kernel (default: off, i.e. offline with warm caches)
#   KERNEL_GOFLAGS  GOFLAGS for the kernel (default: empty; -mod=mod is refused: it breaks go.work)
#   PYTHON          interpreter used to edit kernel.json (default: python3)
#   KERNEL_PYTHON   interpreter with pyzmq that runs docker/kernel_proxy.py in front of gonb
#                   (stop-on-error, log file) [required: the JupyterLab venv's python]
#   KERNEL_LOG_DIR  where the kernel's log goes (default: the proxy's, ~/.local/state/coursekit)
set -euo pipefail

die() { echo "install-kernel: $*" >&2; exit 1; }

: "${GOBIN:?install-kernel: set GOBIN to the dir holding gonb and goimports}"
: "${KERNEL_PREFIX:?install-kernel: set KERNEL_PREFIX to a Jupyter data dir}"
: "${REPO_DIR:?install-kernel: set REPO_DIR to the absolute repo root}"
KERNEL_GOPROXY=${KERNEL_GOPROXY-off}
KERNEL_GOFLAGS=${KERNEL_GOFLAGS-}
PYTHON=${PYTHON:-python3}
: "${KERNEL_PYTHON:?install-kernel: set KERNEL_PYTHON to the JupyterLab venv python (it has pyzmq)}"
KERNEL_LOG_DIR=${KERNEL_LOG_DIR-}
here=$(cd "$(dirname "$0")" && pwd)

case "$GOBIN$KERNEL_PREFIX$REPO_DIR" in *,*) die "paths must not contain commas (gonb -go_work splits on them)";; esac
for d in "$GOBIN" "$KERNEL_PREFIX" "$REPO_DIR"; do
  case "$d" in /*) ;; *) die "$d: must be an absolute path";; esac
done
[ -f "$REPO_DIR/go.mod" ] || die "$REPO_DIR/go.mod not found: REPO_DIR must be the repo root"
for tool in gonb goimports; do
  [ -x "$GOBIN/$tool" ] || die "$GOBIN/$tool missing: build the tools first (cd docker/tools && GOBIN=$GOBIN go install tool)"
done
case " $KERNEL_GOFLAGS " in *-mod=mod*) die "KERNEL_GOFLAGS must not contain -mod=mod: it breaks the kernel's go.work";; esac
command -v go >/dev/null 2>&1 || die "go not found on PATH (install Go 1.26 or add its bin dir to PATH)"
command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (set PYTHON to a Python 3 interpreter)"
"$KERNEL_PYTHON" -c 'import zmq' 2>/dev/null || die "$KERNEL_PYTHON cannot import zmq (pyzmq): use the JupyterLab venv's python"
for f in kernel_proxy.py kernel_hints.py; do [ -f "$here/$f" ] || die "$here/$f missing"; done

# The go toolchain's bin dir, absolute, so the kernel finds go whatever PATH Jupyter has.
go_bin=$(GOTOOLCHAIN=local go env GOROOT)/bin
[ -x "$go_bin/go" ] || die "cannot find the go binary under $go_bin"

mkdir -p "$KERNEL_PREFIX"
extra=()
[ -x "$GOBIN/gopls" ] || extra+=(--force_deps)   # gopls only adds completion
PATH="$GOBIN:$go_bin:$PATH" JUPYTER_DATA_DIR="$KERNEL_PREFIX" \
  "$GOBIN/gonb" --install "-go_work=$REPO_DIR" --logtostderr "${extra[@]}" >/dev/null 2>&1 \
  || { PATH="$GOBIN:$go_bin:$PATH" JUPYTER_DATA_DIR="$KERNEL_PREFIX" \
         "$GOBIN/gonb" --install "-go_work=$REPO_DIR" --logtostderr "${extra[@]}"; die "gonb --install failed"; }

spec="$KERNEL_PREFIX/kernels/gonb/kernel.json"
[ -f "$spec" ] || die "gonb --install did not write $spec"
install -m 0644 "$here/kernel_proxy.py" "$here/kernel_hints.py" "$KERNEL_PREFIX/kernels/gonb/"

# GoNB starts a gopls beside every kernel, and each one loads the notebooks' packages again: a
# tab per notebook left 11 gopls at up to 1.3 GB each (5 GB in all). The kernel finds this
# wrapper first on its PATH: it runs gopls with a soft memory limit (GOMEMLIMIT, default 300 MiB,
# COURSE_GOPLS_MEMLIMIT to change it), so each collects its garbage instead of holding it.
# (One shared daemon, gopls -remote=auto, used less memory still, but help requests through it
# outlived GoNB's 8 s limit.)
wrap_dir="$KERNEL_PREFIX/kernels/gonb/bin"
rm -rf "$wrap_dir"
if [ -x "$GOBIN/gopls" ]; then
  mkdir -p "$wrap_dir"
  printf '#!/bin/sh\n# gopls with a soft memory limit for the course kernels (docker/install-kernel.sh).\nGOMEMLIMIT=${COURSE_GOPLS_MEMLIMIT:-300MiB} exec %q "$@"\n' "$GOBIN/gopls" > "$wrap_dir/gopls"
  chmod 0755 "$wrap_dir/gopls"
fi

KPATH="$wrap_dir:$GOBIN:$go_bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
KGOPROXY="$KERNEL_GOPROXY" KGOFLAGS="$KERNEL_GOFLAGS" SPEC="$spec" GOBIN_DIR="$GOBIN" REPO="$REPO_DIR" \
KPY="$KERNEL_PYTHON" KLOG="$KERNEL_LOG_DIR" \
"$PYTHON" - <<'EOF'
import json, os
spec = os.environ["SPEC"]
with open(spec) as f:
    k = json.load(f)
# argv[0] must be the gonb we were given (gonb may copy itself in some setups; keep what it wrote if so).
want = "-go_work=" + os.environ["REPO"]
if want not in k["argv"]:
    raise SystemExit("install-kernel: kernel.json argv lacks " + want + ": " + " ".join(k["argv"]))
# gonb runs behind docker/kernel_proxy.py (stop-on-error, log file): Jupyter starts the proxy
# with the connection file, the proxy starts gonb with one of its own.
argv = ["@GONB_CONNECTION_FILE@" if a == "{connection_file}" else a for a in k["argv"]]
k["argv"] = [os.environ["KPY"], os.path.join(os.path.dirname(spec), "kernel_proxy.py"), "{connection_file}", "--"] + argv
k["env"] = {
    "PATH": os.environ["KPATH"],
    "GOPROXY": os.environ["KGOPROXY"],
    "GOTOOLCHAIN": "local",
    # Always set, so a GOFLAGS=-mod=mod in Jupyter's environment cannot leak in.
    "GOFLAGS": os.environ["KGOFLAGS"],
}
if os.environ["KLOG"]:
    k["env"]["COURSE_KERNEL_LOG_DIR"] = os.environ["KLOG"]
k["display_name"] = "Go (gonb)"
tmp = spec + ".tmp"
with open(tmp, "w") as f:
    json.dump(k, f, indent=1)
    f.write("\n")
os.replace(tmp, spec)
EOF
echo "install-kernel: gonb kernel installed in $KERNEL_PREFIX/kernels/gonb (GOPROXY=$KERNEL_GOPROXY, go_work=$REPO_DIR)"

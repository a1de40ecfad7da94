# Shared by docker/test/test-hub.sh and docker/test/hub/capacity.sh (sourced, not run): the engine
# (podman's Docker-compatible API socket), the learners' internal network and the hub itself,
# all started by the caller and all stopped by hub_cleanup, even after a failure.
#
# The caller sets: REPO, OUT (log folder), PREFIX (name prefix of every podman object),
# HUB_VENV, IMAGE; and calls hub_cleanup from its EXIT trap.

HUB_PIDS=()        # process groups we started (hub, podman service)
HUB_LOG_N=0

hub_die() { printf '\n%s: FAIL: %s\n' "${HUB_WHO:-hub}" "$*" >&2; exit 1; }

hub_free_port() { # first free TCP port on 127.0.0.1 from $1
  local p=$1
  while (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}

# hub_engine: podman's Docker API on a socket of our own (DockerSpawner talks to it).
hub_engine() {
  [ "$(id -u)" = 0 ] || hub_die "run as root: the tested podman setup is rootful (docker/host-setup.sh)"
  podman image exists "$IMAGE" || hub_die "no image $IMAGE: build it first with 'make test-image'"
  HUB_SOCK="$OUT/run/podman.sock"
  rm -f "$HUB_SOCK"
  setsid podman system service --time=0 "unix://$HUB_SOCK" >"$OUT/podman-service.log" 2>&1 &
  HUB_PIDS+=($!)
  local i
  for i in $(seq 1 60); do
    curl -sf --unix-socket "$HUB_SOCK" http://d/_ping >/dev/null 2>&1 && break
    sleep 0.5
  done
  curl -sf --unix-socket "$HUB_SOCK" http://d/_ping >/dev/null || hub_die "podman system service did not answer on $HUB_SOCK (log: $OUT/podman-service.log)"
  export DOCKER_HOST="unix://$HUB_SOCK"
}

# hub_network: an internal network (no route out) for the learners' containers. Podman makes
# the network's bridge, and so the host's gateway address the hub API binds to, only while a
# container is attached: an idle anchor container keeps it (dockerd makes it at once).
hub_network() {
  HUB_NET="$PREFIX-net"
  podman network exists "$HUB_NET" && podman network rm -f "$HUB_NET" >/dev/null
  podman network create --internal "$HUB_NET" >/dev/null
  HUB_GATEWAY=$(podman network inspect --format '{{range .Subnets}}{{.Gateway}}{{end}}' "$HUB_NET")
  [ -n "$HUB_GATEWAY" ] || hub_die "network $HUB_NET has no gateway"
  podman run -d --name "$PREFIX-anchor" --network "$HUB_NET" --cap-drop ALL --security-opt no-new-privileges \
    --memory 32m --entrypoint sleep "$IMAGE" infinity >/dev/null
}

# hub_start [VAR=VALUE...]: start jupyterhub -f docker/jupyterhub_config.py with the COURSEHUB_*
# settings of the caller plus these; waits until the public URL answers. Sets HUB_URL, HUB_LOG.
hub_start() {
  HUB_LOG_N=$((HUB_LOG_N + 1))
  HUB_LOG="$OUT/hub-$HUB_LOG_N.log"
  HUB_PORT=${HUB_PORT:-$(hub_free_port 18000)}
  HUB_URL="http://127.0.0.1:$HUB_PORT"
  local api_port; api_port=$(hub_free_port $((HUB_PORT + 1)))
  mkdir -p "$OUT/run"
  (cd "$OUT/run" && exec setsid env \
      COURSEHUB_IMAGE="$IMAGE" COURSEHUB_PREFIX="$PREFIX" COURSEHUB_NETWORK="$HUB_NET" \
      COURSEHUB_BIND_URL="$HUB_URL" COURSEHUB_PROXY_API_PORT="$api_port" \
      COURSEHUB_HUB_PORT="${COURSEHUB_HUB_PORT:-8081}" "$@" \
      nice -n 5 "$HUB_VENV/bin/jupyterhub" -f "$REPO/docker/jupyterhub_config.py") >"$HUB_LOG" 2>&1 &
  HUB_PID=$!
  HUB_PIDS+=("$HUB_PID")
  local i
  for i in $(seq 1 120); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$HUB_URL/hub/api/")" = 200 ] && return 0
    kill -0 "$HUB_PID" 2>/dev/null || { tail -30 "$HUB_LOG" >&2; hub_die "jupyterhub exited (log: $HUB_LOG)"; }
    sleep 1
  done
  tail -30 "$HUB_LOG" >&2
  hub_die "the hub did not answer on $HUB_URL/hub/api/ within 120 s (log: $HUB_LOG)"
}

# hub_stop: SIGTERM to the hub's process group (it stops the servers, the proxy and the
# culler), then SIGKILL whatever of it is left.
# JupyterHub starts the proxy in a session of its own (so that a hub restart keeps the routes):
# if the hub died before stopping it, the proxy is found by the pid file the hub wrote.
hub_stop() {
  [ -n "${HUB_PID:-}" ] || return 0
  hub_kill_group "$HUB_PID"
  HUB_PID=
  local pidfile="$OUT/run/jupyterhub-proxy.pid" pid
  if [ -f "$pidfile" ]; then
    pid=$(cat "$pidfile")
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$REPO/docker/hub/node_modules/.*configurable-http-proxy"; then
      hub_kill_group "$pid"
      kill -TERM "$pid" 2>/dev/null
    fi
    rm -f "$pidfile"
  fi
}

hub_kill_group() {
  local pid=$1 i
  kill -TERM -- "-$pid" 2>/dev/null || return 0
  for i in $(seq 1 60); do kill -0 -- "-$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -KILL -- "-$pid" 2>/dev/null || true
}

# hub_cleanup: every object named $PREFIX-*, the hub, the proxy, the engine socket.
hub_cleanup() {
  set +e
  hub_stop
  local c v
  for c in $(podman ps -a --format '{{.Names}}' 2>/dev/null | grep "^$PREFIX-"); do podman rm -f -t 2 "$c" >/dev/null 2>&1; done
  for v in $(podman volume ls --format '{{.Name}}' 2>/dev/null | grep "^$PREFIX-"); do podman volume rm -f "$v" >/dev/null 2>&1; done
  podman network exists "$PREFIX-net" 2>/dev/null && podman network rm -f "$PREFIX-net" >/dev/null 2>&1
  local pid
  for pid in "${HUB_PIDS[@]}"; do hub_kill_group "$pid"; done
  rm -f "${HUB_SOCK:-}"
}

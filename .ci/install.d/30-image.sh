#!/usr/bin/env bash
# Installs what `make test-image` needs on a fresh Debian 12 machine (run as root): podman with
# runc, podman-compose, debootstrap and curl, plus the podman configuration these machines need
# (crun fails with "cgroups in hybrid mode not supported"; runc fails to set the default ulimits:
# "setrlimit ... operation not permitted"). Idempotent and non-interactive.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

pkgs=(podman runc debootstrap podman-compose curl)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "30-image: installing ${missing[*]}"
  # Wait for another apt/dpkg run (e.g. a parallel install step) instead of failing on its lock.
  apt-get -o DPkg::Lock::Timeout=600 update
  apt-get -o DPkg::Lock::Timeout=600 install -y "${pkgs[@]}"
else
  echo "30-image: ${pkgs[*]} already installed"
fi

# A drop-in, so an existing /etc/containers/containers.conf is left alone; written only when it
# is missing or different. docker/test-image.sh checks (and if needed writes) the same file.
conf=/etc/containers/containers.conf.d/50-llmperf-course.conf
want='# Written by the course repo (docker/test-image.sh, .ci/install.d/30-image.sh).
[containers]
default_ulimits = []

[engine]
runtime = "runc"'
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$want" ]; then
  mkdir -p "$(dirname "$conf")"
  printf '%s\n' "$want" >"$conf"
  echo "30-image: wrote $conf"
fi
podman --version
echo "30-image: podman runtime $(podman info --format '{{.Host.OCIRuntime.Name}}')"

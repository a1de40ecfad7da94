#!/usr/bin/env bash
# The Debian packages a make target needs on the host, installed the way CI installs them.
#
#   bash docker/host-setup.sh GROUP...     GROUP: test | image | load | spark
#
#   test   chromium + CJK fonts (browser tests), python3-venv (the JupyterLab venv), zsh (the
#          completion test)
#   image  podman + runc, podman-compose, debootstrap, curl (make test-image), and the podman
#          configuration these machines need (crun: "cgroups in hybrid mode not supported";
#          runc: "setrlimit ... operation not permitted" unless default ulimits are dropped)
#   load   stress-ng (make test-under-load), zsh (its CLI tests include the completion test)
#   spark  OpenJDK 17 (the JVM pyspark runs in local mode: make test-spark), python3-venv
#
# As root it installs what is missing (apt-get, non-interactive, waiting for another apt run's
# lock instead of failing). As another user it installs nothing: it names the missing packages
# and the command that installs them, and exits 1. Idempotent: a second run only checks.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

want=()
podman_conf=0
for group in "$@"; do
  case "$group" in
    test)  want+=(chromium fonts-noto-cjk fontconfig python3-venv zsh) ;;
    image) want+=(podman runc debootstrap podman-compose curl); podman_conf=1 ;;
    load)  want+=(stress-ng zsh) ;;
    spark) want+=(openjdk-17-jre-headless python3-venv) ;;
    *) echo "host-setup: unknown group '$group' (want test, image, load or spark)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "host-setup: missing Debian packages: ${missing[*]}" >&2
    echo "host-setup: install them with: sudo apt-get install ${missing[*]}   (or run make as root)" >&2
    exit 1
  fi
  echo "host-setup: installing ${missing[*]}"
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
fi

if [ "$podman_conf" = 1 ]; then
  # A drop-in, so an existing /etc/containers/containers.conf is left alone; written only when it
  # is missing or different. docker/test/test-image.sh checks the same file.
  conf=/etc/containers/containers.conf.d/50-llmperf-course.conf
  conf_text='# Written by the course repo (docker/host-setup.sh).
[containers]
default_ulimits = []

[engine]
runtime = "runc"'
  if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$conf_text" ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "host-setup: $conf is missing or different; run this script as root once" >&2
      exit 1
    fi
    mkdir -p "$(dirname "$conf")"
    printf '%s\n' "$conf_text" >"$conf"
    echo "host-setup: wrote $conf"
  fi
fi

#!/usr/bin/env bash
# What the notebook tests need on a fresh Debian 12 machine (run as root by .ci/run):
# Debian's Chromium and a CJK font for the browser test, python3-venv for the JupyterLab venv,
# then the local runtime (make lab-setup: venv, Go tools, kernelspec, warm caches) and
# playwright-core (never a browser download). Idempotent and non-interactive.
set -euo pipefail
cd "$(dirname "$0")/../.."
export DEBIAN_FRONTEND=noninteractive GOTOOLCHAIN=local

need=()
for pkg in chromium fonts-noto-cjk fontconfig python3-venv; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "20-lab: apt-get install ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

# Node.js and npm come with the machine; Debian's npm package would pull a second Node.js.
command -v npm >/dev/null || { echo "20-lab: npm not found: install Node.js 20+ with npm" >&2; exit 1; }

make lab-setup
make browser-setup   # npm ci in docker/browser with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

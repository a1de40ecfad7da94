#!/usr/bin/env bash
# Builds LOCAL stand-ins for the official base images that docker/Dockerfile names, so that
# podman can build the Dockerfile unchanged on a machine that reaches no container registry:
#   docker.io/library/debian:bookworm-slim  <- debootstrap --variant=minbase bookworm rootfs
#   docker.io/library/golang:1.26-bookworm  <- that rootfs + this machine's Go toolchain at /usr/local/go
#   docker.io/library/node:20-bookworm-slim <- that rootfs + this machine's Node 20 and npm in /usr/local
# An image that already exists under one of these names (a stand-in from an earlier run, or the
# real image) is reused as it is; pass --rebuild to replace the stand-ins.
# The Debian mirror is read from this machine's apt sources at run time.
# Extra CA certificates of this machine (/usr/local/share/ca-certificates, e.g. the CA of a
# TLS-inspecting egress proxy) are added to the stand-ins, as the machine's own tools trust them:
# the Debian stand-in gets them in /usr/local/share/ca-certificates (picked up when a Dockerfile
# installs ca-certificates) and the Go stand-in gets the machine's CA bundle, as the official Go
# image ships one. A stand-in made with another set of extra CAs is rebuilt.
# Needs root, podman and debootstrap (see docker/host-setup.sh).
set -euo pipefail

DEBIAN_IMAGE=docker.io/library/debian:bookworm-slim
GO_IMAGE=docker.io/library/golang:1.26-bookworm
NODE_IMAGE=docker.io/library/node:20-bookworm-slim
SUITE=bookworm
STANDIN_LABEL=org.llmperf-course.standin

rebuild=0
[ "${1:-}" = "--rebuild" ] && rebuild=1

log() { printf 'standins: %s\n' "$*" >&2; }
die() { printf 'standins: ERROR: %s\n' "$*" >&2; exit 1; }

command -v podman >/dev/null || die "podman not found (install it: bash docker/host-setup.sh image)"

# debian_mirror prints the first Debian archive URI (not the security archive) configured for apt.
debian_mirror() {
  local f uri
  # deb822 .sources files: "URIs: <uri> ..." in a stanza whose Suites include the release.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    uri=$(awk -v suite="$SUITE" '
      BEGIN { RS=""; FS="\n" }
      {
        uris=""; suites=""; types=""; enabled="yes"
        for (i = 1; i <= NF; i++) {
          line = $i
          if (line ~ /^[ \t]*#/) continue
          if (line ~ /^URIs:/)    { sub(/^URIs:[ \t]*/, "", line); uris = line }
          if (line ~ /^Suites:/)  { sub(/^Suites:[ \t]*/, "", line); suites = " " line " " }
          if (line ~ /^Types:/)   { sub(/^Types:[ \t]*/, "", line); types = " " line " " }
          if (line ~ /^Enabled:/) { sub(/^Enabled:[ \t]*/, "", line); enabled = tolower(line) }
        }
        if (enabled == "no" || types !~ / deb / || suites !~ (" " suite " ")) next
        split(uris, u, /[ \t]+/)
        for (k in u) if (u[k] != "" && u[k] !~ /security/) { print u[k]; exit }
      }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return 0; }
  done
  # one-line format: "deb [options] <uri> <suite> <components>"
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    uri=$(awk -v suite="$SUITE" '
      $1 == "deb" {
        i = 2
        if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
        if ($(i+1) == suite && $i !~ /security/) { print $i; exit }
      }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return 0; }
  done
  return 1
}

exists() { podman image exists "$1"; }

tmp_dirs=()
cleanup() { local d; for d in "${tmp_dirs[@]}"; do rm -rf "$d"; done; }
trap cleanup EXIT

EXTRA_CA_DIR=/usr/local/share/ca-certificates
HOST_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
# A digest of the machine's extra CA certificates ("none" if there are none).
ca_digest() {
  local files
  files=$(find "$EXTRA_CA_DIR" -type f -name '*.crt' 2>/dev/null | sort)
  if [ -z "$files" ]; then echo none; return; fi
  # shellcheck disable=SC2086
  cat $files | sha256sum | cut -c1-16
}
CA_DIGEST=$(ca_digest)

# reusable IMAGE: true if IMAGE exists and is either not our stand-in (a real image) or a stand-in
# made with the same extra CAs.
reusable() {
  exists "$1" || return 1
  [ "$rebuild" = 0 ] || return 1
  local kind cas
  kind=$(podman image inspect --format "{{ index .Labels \"$STANDIN_LABEL\" }}" "$1" 2>/dev/null || true)
  cas=$(podman image inspect --format "{{ index .Labels \"$STANDIN_LABEL.cas\" }}" "$1" 2>/dev/null || true)
  case "$kind" in ""|"<no value>") return 0 ;; esac   # a real image, not one of our stand-ins
  [ "$cas" = "$CA_DIGEST" ] && return 0
  log "$1 is a stand-in made with other extra CA certificates: rebuilding it"
  return 1
}

build_debian() {
  if reusable "$DEBIAN_IMAGE"; then
    log "reusing $DEBIAN_IMAGE ($(podman image inspect --format '{{.Id}}' "$DEBIAN_IMAGE" | cut -c1-12))"
    return
  fi
  command -v debootstrap >/dev/null || die "debootstrap not found (install it: bash docker/host-setup.sh image)"
  [ "$(id -u)" = 0 ] || die "debootstrap needs root"
  local mirror
  mirror=$(debian_mirror) || die "no Debian '$SUITE' archive found in the apt sources (/etc/apt/sources.list{,.d/})"
  local tmp; tmp=$(mktemp -d "${TMPDIR:-/tmp}/standin-debian.XXXXXX")
  tmp_dirs+=("$tmp")
  log "debootstrap --variant=minbase $SUITE from $mirror (about 1 min)"
  local t0=$SECONDS
  if ! debootstrap --variant=minbase "$SUITE" "$tmp/rootfs" "$mirror" >"$tmp/debootstrap.log" 2>&1; then
    tail -n 30 "$tmp/debootstrap.log" >&2
    die "debootstrap failed (log above)"
  fi
  # Like the official slim image: no package lists or downloaded .debs in the image.
  rm -rf "$tmp"/rootfs/var/lib/apt/lists/* "$tmp"/rootfs/var/cache/apt/archives/*.deb "$tmp"/rootfs/debootstrap
  if [ "$CA_DIGEST" != none ]; then
    mkdir -p "$tmp/rootfs$EXTRA_CA_DIR"
    find "$EXTRA_CA_DIR" -type f -name '*.crt' -exec cp {} "$tmp/rootfs$EXTRA_CA_DIR/" \;
    log "added the machine's extra CA certificates: $(cd "$EXTRA_CA_DIR" && find . -type f -name '*.crt' | tr '\n' ' ')"
  fi
  tar -C "$tmp/rootfs" --numeric-owner -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' \
    --change "LABEL $STANDIN_LABEL=debootstrap-minbase-$SUITE" \
    --change "LABEL $STANDIN_LABEL.cas=$CA_DIGEST" \
    - "$DEBIAN_IMAGE" >/dev/null
  debian_rebuilt=1
  log "built $DEBIAN_IMAGE in $((SECONDS - t0)) s"
}

build_go() {
  if reusable "$GO_IMAGE" && [ "$debian_rebuilt" = 0 ]; then
    log "reusing $GO_IMAGE ($(podman image inspect --format '{{.Id}}' "$GO_IMAGE" | cut -c1-12))"
    return
  fi
  command -v go >/dev/null || die "go not found: the Go stand-in copies this machine's Go toolchain"
  local goroot gover
  goroot=$(go env GOROOT)
  gover=$(GOTOOLCHAIN=local go env GOVERSION)
  case "$gover" in go1.26*) ;; *) die "the machine's Go is $gover; $GO_IMAGE needs go1.26.x" ;; esac
  local tmp; tmp=$(mktemp -d "${TMPDIR:-/tmp}/standin-go.XXXXXX")
  tmp_dirs+=("$tmp")
  cp -a "$goroot" "$tmp/go"
  mkdir -p "$tmp/certs"
  [ -r "$HOST_CA_BUNDLE" ] && cp "$HOST_CA_BUNDLE" "$tmp/certs/ca-certificates.crt"
  cat >"$tmp/Containerfile" <<EOF
FROM $DEBIAN_IMAGE
COPY go /usr/local/go
COPY certs/ /etc/ssl/certs/
ENV GOLANG_VERSION=${gover#go} GOTOOLCHAIN=local GOPATH=/go
ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LABEL $STANDIN_LABEL=debian-plus-host-$gover $STANDIN_LABEL.cas=$CA_DIGEST
WORKDIR /go
EOF
  local t0=$SECONDS
  podman build --pull=never -q -t "$GO_IMAGE" -f "$tmp/Containerfile" "$tmp" >/dev/null
  log "built $GO_IMAGE ($gover from $goroot) in $((SECONDS - t0)) s"
}

# The official Node image keeps node in /usr/local/bin and npm in /usr/local/lib/node_modules.
build_node() {
  if reusable "$NODE_IMAGE" && [ "$debian_rebuilt" = 0 ]; then
    log "reusing $NODE_IMAGE ($(podman image inspect --format '{{.Id}}' "$NODE_IMAGE" | cut -c1-12))"
    return
  fi
  local node npm_dir nodever
  node=$(command -v node) || die "node not found: the Node stand-in copies this machine's Node 20"
  nodever=$(node --version)
  case "$nodever" in v20.*) ;; *) die "the machine's Node is $nodever; $NODE_IMAGE needs v20.x" ;; esac
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  [ -f "$npm_dir/package.json" ] || die "cannot find npm's folder (from $(command -v npm))"
  local tmp; tmp=$(mktemp -d "${TMPDIR:-/tmp}/standin-node.XXXXXX")
  tmp_dirs+=("$tmp")
  mkdir -p "$tmp/bin" "$tmp/lib" "$tmp/certs"
  cp -a "$(readlink -f "$node")" "$tmp/bin/node"
  cp -a "$npm_dir" "$tmp/lib/npm"
  [ -r "$HOST_CA_BUNDLE" ] && cp "$HOST_CA_BUNDLE" "$tmp/certs/ca-certificates.crt"
  cat >"$tmp/Containerfile" <<EOF
FROM $DEBIAN_IMAGE
COPY bin/node /usr/local/bin/node
COPY lib/npm /usr/local/lib/node_modules/npm
COPY certs/ /etc/ssl/certs/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx && node --version && npm --version
ENV NODE_VERSION=${nodever#v}
LABEL $STANDIN_LABEL=debian-plus-host-node-$nodever $STANDIN_LABEL.cas=$CA_DIGEST
EOF
  local t0=$SECONDS
  podman build --pull=never -q -t "$NODE_IMAGE" -f "$tmp/Containerfile" "$tmp" >/dev/null
  log "built $NODE_IMAGE (node $nodever) in $((SECONDS - t0)) s"
}

debian_rebuilt=0
build_debian
build_go
build_node
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^docker.io/library/(debian:bookworm-slim|golang:1.26-bookworm|node:20-bookworm-slim) ' >&2

#!/bin/sh
# Entrypoint of the course image (run by tini as the learner): prepares the learner's work dir,
# then runs the command (by default `jupyter lab ...`; under JupyterHub `jupyterhub-singleuser`).
#
# Seeding: every file under $COURSE_DIR/notebooks (and data/) that the work dir has never received
# is copied into $COURSE_WORK, keeping the repo layout (notebooks/..., data/...), so notebooks that
# refer to ../data work unchanged. Files already there are never overwritten, and a file the learner
# deleted is not brought back (the list of seeded files is kept in $COURSE_WORK/.course-seeded).
# A rebuilt image with new notebooks adds just the new ones to an existing volume.
set -eu

COURSE_DIR=${COURSE_DIR:-/opt/course}
COURSE_WORK=${COURSE_WORK:-$HOME/work}

warn() { echo "course-entrypoint: $*" >&2; }

seed() {
  manifest="$COURSE_WORK/.course-seeded"
  added=0
  # Files in the repo layout, relative to $COURSE_DIR.
  list=$(cd "$COURSE_DIR" && find notebooks data -type f ! -path '*/.ipynb_checkpoints/*' 2>/dev/null | sort)
  [ -n "$list" ] || return 0
  touch "$manifest"
  old_ifs=$IFS
  IFS='
'
  for f in $list; do
    grep -qxF -- "$f" "$manifest" && continue
    if [ ! -e "$COURSE_WORK/$f" ]; then
      mkdir -p "$COURSE_WORK/$(dirname "$f")"
      cp "$COURSE_DIR/$f" "$COURSE_WORK/$f"
      chmod u+w "$COURSE_WORK/$f"
      added=$((added + 1))
    fi
    printf '%s\n' "$f" >>"$manifest"
  done
  IFS=$old_ifs
  [ "$added" -eq 0 ] || warn "copied $added course file(s) into $COURSE_WORK"
}

if mkdir -p "$COURSE_WORK" 2>/dev/null && [ -w "$COURSE_WORK" ]; then
  seed
else
  warn "WARNING: $COURSE_WORK is not writable by uid $(id -u): notebooks were not copied and work cannot be saved."
  warn "         Use a named volume, or a host directory owned by uid $(id -u)."
fi

# The warm Go build cache is writable by the image's learner user. If the container runs as another
# uid (some JupyterHub setups), use a per-user copy of it instead so the first cell stays fast.
if [ -n "${GOCACHE:-}" ] && [ ! -w "$GOCACHE" ]; then
  user_cache=""
  for base in "${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}" "${TMPDIR:-/tmp}/cache-$(id -u)"; do
    if mkdir -p "$base/go-build" 2>/dev/null && [ -w "$base/go-build" ]; then
      user_cache="$base/go-build"
      break
    fi
  done
  if [ -z "$user_cache" ]; then
    warn "WARNING: the Go build cache $GOCACHE is not writable by uid $(id -u) and no other place is: Go cells will fail."
  else
    if [ ! -e "$user_cache/README" ]; then
      cp -a "$GOCACHE/." "$user_cache/" 2>/dev/null || warn "could not copy the warm Go build cache (cells will be slower)"
    fi
    export GOCACHE="$user_cache"
  fi
fi

cd "$COURSE_WORK" 2>/dev/null || true
exec "$@"

#!/usr/bin/env bash
# Sets up whatever this machine lacks, then runs every test: the stages in
# scripts/ci/, in name order. Stop at the first failure.
#   scripts/test.sh              all stages
#   scripts/test.sh rust wasm    only stages whose names contain these words
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

start=$SECONDS
for stage in scripts/ci/[0-9]*.sh; do
    name="$(basename "$stage" .sh)"
    if [ $# -gt 0 ]; then
        keep=no
        for w in "$@"; do case "$name" in *"$w"*) keep=yes ;; esac; done
        [ "$keep" = yes ] || continue
    fi
    log "stage $name"
    t=$SECONDS
    if ! bash "$stage"; then
        die "stage $name failed after $((SECONDS - t)) s (the lines above say why); run it alone with: ./scripts/test.sh ${name#*-}"
    fi
    log "stage $name passed in $((SECONDS - t)) s"
done
log "all stages passed in $((SECONDS - start)) s"

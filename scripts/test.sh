#!/usr/bin/env bash
# Sets up whatever this machine lacks, then runs every test: the stages in
# scripts/ci/, in name order. Stop at the first failure.
#   scripts/test.sh              all stages
#   scripts/test.sh rust wasm    only stages whose names contain these words
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

# A whole run from a clean checkout leaves about FULL_RUN_GIB GiB of build
# output (docs/toolchain.md); what an earlier run left counts towards it.
FULL_RUN_GIB=10
target="${CARGO_TARGET_DIR:-$ROOT/target}"
built_gib=0
[ -d "$target" ] && built_gib=$(($(du -sk "$target" | cut -f1) / 1024 / 1024))
need=$((FULL_RUN_GIB - built_gib))
[ "$need" -ge 1 ] || need=1
require_free_space "$target" "$need"

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

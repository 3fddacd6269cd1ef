#!/usr/bin/env bash
# Short fuzz runs (libFuzzer via cargo-fuzz), FUZZ_SECONDS per target
# (default 30), as many targets at once as there are cores: the lockstep wire decoder and a session fed arbitrary peer
# bytes (lockstep/fuzz), the host-authoritative model's decoders, delta
# codec and machines (authority/fuzz), the signalling contract's parsers
# and the core's lobby and room machines driven by scripts of events
# (signaling/core/fuzz), and what a lobby peer can send the web shell over
# the mesh (web-shell/fuzz). A crash leaves its input in the fuzz
# crate's artifacts/ folder.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
ensure_cargo_fuzz
# libfuzzer-sys compiles libFuzzer's C++ sources.
ensure_cxx
cd "$ROOT"

# Each fuzz crate (its own workspace) with its targets.
FUZZ_CRATES=(lockstep/fuzz authority/fuzz signaling/core/fuzz web-shell/fuzz)
declare -A TARGETS=([lockstep/fuzz]="decode session" [authority/fuzz]="decode machines"
    [signaling/core/fuzz]="parse machines" [web-shell/fuzz]="peer_message")

# Lint the fuzz targets (stage 10 does not see their workspaces). A check
# links nothing: pointing libfuzzer-sys at a library path that is never used
# spares compiling libFuzzer's C++ for this.

for crate in "${FUZZ_CRATES[@]}"; do
    log "clippy on the fuzz targets of $crate"
    CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/fuzz-clippy" \
        CUSTOM_LIBFUZZER_PATH=/nonexistent/libfuzzer.a \
        cargo clippy --manifest-path "$ROOT/$crate/Cargo.toml" -- -D warnings
done

# cargo-fuzz passes -Z flags (sanitizer, coverage) that stable rustc
# accepts only with this set; a nightly toolchain is not required.
export RUSTC_BOOTSTRAP=1
# Keep the instrumented build apart from the normal one.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/fuzz"
seconds="${FUZZ_SECONDS:-30}"
outdir="$(mktemp -d)"
trap 'rm -rf "$outdir"' EXIT

# Build every target first, one crate at a time (the builds use every core).
runs=()
for crate in "${FUZZ_CRATES[@]}"; do
    log "building the fuzz targets of $crate"
    (cd "$ROOT/$crate" && cargo fuzz build)
    for target in ${TARGETS[$crate]}; do runs+=("$crate $target"); done
done

# Then fuzz: libFuzzer runs one process on one core, so as many targets run
# at once as there are cores, each still for its full time.
cores="$(nproc 2>/dev/null || echo 2)"
fuzz_one() {
    local crate="$1" target="$2" out="$outdir/${1//\//_}-$2"
    local status=0
    (cd "$ROOT/$crate" && cargo fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=4096 \
        -print_final_stats=1) >"$out.log" 2>&1 || status=$?
    echo "$status" >"$out.rc"
}
for ((i = 0; i < ${#runs[@]}; i += cores)); do
    batch=("${runs[@]:i:cores}")
    for job in "${batch[@]}"; do
        read -r crate target <<<"$job"
        log "fuzzing $crate '$target' for ${seconds} s"
        fuzz_one "$crate" "$target" &
    done
    wait
    for job in "${batch[@]}"; do
        read -r crate target <<<"$job"
        out="$outdir/${crate//\//_}-$target"
        echo "$crate '$target':"
        grep -E '^(Done|stat::number_of_executed_units)' "$out.log" || true
        if [ "$(cat "$out.rc")" -ne 0 ]; then
            tail -n 60 "$out.log"
            log "fuzz target '$target' of $crate failed (input saved under $crate/artifacts/$target/)"
            exit 1
        fi
    done
done

#!/usr/bin/env bash
# Short fuzz runs (libFuzzer via cargo-fuzz) of the lockstep wire decoder
# and of a session fed arbitrary peer bytes. FUZZ_SECONDS per target
# (default 30). A crash leaves its input in lockstep/fuzz/artifacts/.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
ensure_cargo_fuzz
# libfuzzer-sys compiles libFuzzer's C++ sources.
ensure_cxx
cd "$ROOT/lockstep/fuzz"

# Lint the fuzz targets (their own workspace, so stage 10 does not see
# them). A check links nothing: pointing libfuzzer-sys at a library path
# that is never used spares compiling libFuzzer's C++ for this.
log "clippy on the fuzz targets"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/fuzz-clippy" \
    CUSTOM_LIBFUZZER_PATH=/nonexistent/libfuzzer.a \
    cargo clippy --manifest-path "$ROOT/lockstep/fuzz/Cargo.toml" -- -D warnings

# cargo-fuzz passes -Z flags (sanitizer, coverage) that stable rustc
# accepts only with this set; a nightly toolchain is not required.
export RUSTC_BOOTSTRAP=1
# Keep the instrumented build apart from the normal one.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/fuzz"
seconds="${FUZZ_SECONDS:-30}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for target in decode session; do
    log "fuzzing '$target' for ${seconds} s"
    status=0
    cargo fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=4096 \
        -print_final_stats=1 >"$out" 2>&1 || status=$?
    grep -E '^(Done|stat::number_of_executed_units)' "$out" || true
    if [ "$status" -ne 0 ]; then
        tail -n 60 "$out"
        log "fuzz target '$target' failed (input saved under lockstep/fuzz/artifacts/$target/)"
        exit 1
    fi
done

#!/usr/bin/env bash
# NtBA determinism across engines: build the check module for
# wasm32-unknown-unknown and make Node and wasmtime replay the golden script,
# the two golden matches and the three- and four-person scripts and hash the
# rules' numbers; they must produce exactly GOLDEN_HASH, SCRIPT_HASH,
# MATCH_HASH, RULES_HASH and PEOPLE_HASH pinned in games/ntba/src/lib.rs,
# which the native test golden_hash_is_the_build_id checks in stage 10. The module is
# built twice: with --release, and with the profile the browser page ships
# (wasm-release: opt-level s, LTO, panic=abort), so the build players run is
# the one checked. Prints the wasm benchmark figures too (Node, --release),
# then runs the networked NtBA examples.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_wasm_target
ensure_node_modules
ensure_wasmtime_py

pinned() {
    pinned_const games/ntba/src/lib.rs "$1"
}
golden="$(pinned GOLDEN_HASH)"
script="$(pinned SCRIPT_HASH)"
matches="$(pinned MATCH_HASH)"
rules="$(pinned RULES_HASH)"
people="$(pinned PEOPLE_HASH)"
if [ -z "$golden" ] || [ -z "$script" ] || [ -z "$matches" ] || [ -z "$rules" ] || [ -z "$people" ]; then
    echo "could not read GOLDEN_HASH, SCRIPT_HASH, MATCH_HASH, RULES_HASH and PEOPLE_HASH from games/ntba/src/lib.rs" >&2
    exit 1
fi
log "native golden hash check (expected $golden: script $script, matches $matches, rules $rules, three and four people $people)"
cargo test --locked -p ntba --test scenarios -q golden_hash_is_the_build_id

target_dir="$(cargo metadata --format-version 1 --no-deps --locked | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
for profile in release wasm-release; do
    log "building the check module for wasm32 (profile $profile)"
    cargo build --locked --profile "$profile" --target wasm32-unknown-unknown -p ntba-wasm-check
    module="$target_dir/wasm32-unknown-unknown/$profile/ntba_wasm_check.wasm"
    bench=()
    [ "$profile" = release ] && bench=(--bench)
    log "Node ($profile)"
    "$ROOT/node_modules/.bin/node" scripts/ntba/check-wasm.mjs "$module" "$golden" "$script" "$matches" "$rules" "$people" "${bench[@]}"
    log "wasmtime ($profile)"
    python3 scripts/ntba/check_wasm.py "$module" "$golden" "$script" "$matches" "$rules" "$people"
done

# The networked examples: CPU against CPU over the loopback and over a lossy
# simulated link; each exits non-zero unless both peers end the match on the
# same tick with the same hash (virtual time: well under a second each).
log "NtBA examples (loopback, simulated link with 20% loss)"
cargo run --locked --release -q -p lockstep-examples --example ntba_loopback -- --seed 5
cargo run --locked --release -q -p lockstep-examples --example ntba_simulated -- --seed 6 --latency 60 --jitter 15 --loss 20
log "NtBA examples in rollback mode (delay from the round trip, lossy link)"
cargo run --locked --release -q -p lockstep-examples --example ntba_simulated -- --seed 7 --latency 60 --jitter 15 --loss 20 --rollback --delay-from-rtt

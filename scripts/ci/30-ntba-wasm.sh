#!/usr/bin/env bash
# NtBA determinism across engines: build the check module for
# wasm32-unknown-unknown and make Node and wasmtime replay the golden script;
# both must produce exactly the GOLDEN_HASH pinned in games/ntba/src/lib.rs
# (which the native test golden_hash_is_the_build_id checks in stage 10).
# Prints the wasm benchmark figures too (Node), then runs the two networked
# NtBA examples.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_wasm_target
ensure_node_modules
ensure_wasmtime_py

expected="$(sed -n 's/^pub const GOLDEN_HASH: u64 = \(0x[0-9a-f_]*\);$/\1/p' games/ntba/src/lib.rs | tr -d _)"
if [ -z "$expected" ]; then
    echo "could not read GOLDEN_HASH from games/ntba/src/lib.rs" >&2
    exit 1
fi
log "native golden hash check (expected $expected)"
cargo test --locked -p ntba --test golden -q golden_hash_is_the_build_id

log "building the check module for wasm32"
cargo build --locked --release --target wasm32-unknown-unknown -p ntba-wasm-check
target_dir="$(cargo metadata --format-version 1 --no-deps --locked | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
module="$target_dir/wasm32-unknown-unknown/release/ntba_wasm_check.wasm"

log "Node"
"$ROOT/node_modules/.bin/node" scripts/ntba/check-wasm.mjs "$module" "$expected" --bench
log "wasmtime"
python3 scripts/ntba/check_wasm.py "$module" "$expected"

# The networked examples: CPU against CPU over the loopback and over a lossy
# simulated link; each exits non-zero unless both peers end the match on the
# same tick with the same hash (virtual time: well under a second each).
log "NtBA examples (loopback, simulated link with 20% loss)"
cargo run --locked --release -q -p lockstep-examples --example ntba_loopback -- --seed 5
cargo run --locked --release -q -p lockstep-examples --example ntba_simulated -- --seed 6 --latency 60 --jitter 15 --loss 20
log "NtBA examples in rollback mode (delay from the round trip, lossy link)"
cargo run --locked --release -q -p lockstep-examples --example ntba_simulated -- --seed 7 --latency 60 --jitter 15 --loss 20 --rollback --delay-from-rtt

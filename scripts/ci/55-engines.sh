#!/usr/bin/env bash
# Determinism in every engine, and a match between two browser engines.
#  1. Every game with a golden hash (NtBA and dots): its check module
#     (games/ntba-wasm-check, games/dots-wasm-check), built with the profile
#     the pages ship (wasm-release), must reproduce the values pinned in the
#     game's Rust source in Node (V8), wasmtime (Cranelift), headless
#     Chromium (V8) and headless Firefox ESR (SpiderMonkey). The pinned
#     values are read from the sources, never written here. (Natively they
#     are checked by the games' golden tests in stage 10; NtBA's --release
#     build in Node and wasmtime in stage 30.) Prints the time of one golden
#     replay in each browser.
#  2. A Firefox page and a Chromium page play NtBA over real WebRTC through
#     the embedded signalling server, each hosting once (rollback, then
#     lock-step); every confirmed tick both showed, and the final state,
#     must have the same hash (tests/browser/firefox-chromium-match.test.mjs).
# Browsers and server run in a network namespace that holds only `lo`
# (with a default route on it, which Firefox's WebRTC needs; stages 50 and
# 60 do without).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_browser_tools
ensure_firefox
ensure_wasmtime_py
NODE="$ROOT/node_modules/.bin/node"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

# Every game crate (an `impl DeterministicGame for`) must have its golden
# hash checked here: a new game fails this stage until it is added below.
covered=(dots ntba)
for dir in games/*/; do
    game="$(basename "$dir")"
    if grep -rqs '^impl DeterministicGame for ' "${dir}src" && [[ " ${covered[*]} " != *" $game "* ]]; then
        echo "games/$game has a golden hash (BUILD_ID) that scripts/ci/55-engines.sh does not check: add a check module for it" >&2
        exit 1
    fi
done

# The pinned values, as the Rust sources spell them.
ntba_pinned() {
    pinned_const games/ntba/src/lib.rs "$1"
}
ntba_golden="$(ntba_pinned GOLDEN_HASH)"
ntba_script="$(ntba_pinned SCRIPT_HASH)"
ntba_matches="$(ntba_pinned MATCH_HASH)"
ntba_rules="$(ntba_pinned RULES_HASH)"
ntba_people="$(ntba_pinned PEOPLE_HASH)"
ntba_people3="$(ntba_pinned PEOPLE3_HASH)"
ntba_people4="$(ntba_pinned PEOPLE4_HASH)"
ntba_ticks="$(cat games/ntba/src/*.rs | sed -n 's/^pub const GOLDEN_TICKS: u32 = \([0-9_]*\);$/\1/p' | tr -d _)"
dots_build_id="$(pinned_const games/dots/src/lib.rs BUILD_ID)"
for v in ntba_golden ntba_script ntba_matches ntba_rules ntba_people ntba_people3 ntba_people4 ntba_ticks dots_build_id; do
    if [ -z "${!v}" ]; then
        echo "could not read $v from the games' sources (games/ntba/src, games/dots/src/lib.rs)" >&2
        exit 1
    fi
done

log "building the games' check modules for wasm32 (profile wasm-release)"
cargo build --locked --profile wasm-release --target wasm32-unknown-unknown -p ntba-wasm-check -p dots-wasm-check
golden_dir="$TARGET_DIR/golden-web"
rm -rf "$golden_dir"
mkdir -p "$golden_dir"
cp tests/golden/index.html tests/golden/golden.js "$golden_dir/"
for m in ntba_wasm_check dots_wasm_check; do
    cp "$TARGET_DIR/wasm32-unknown-unknown/wasm-release/$m.wasm" "$golden_dir/"
done
cat >"$golden_dir/spec.json" <<EOF
{
  "modules": { "ntba": "ntba_wasm_check.wasm", "dots": "dots_wasm_check.wasm" },
  "checks": [
    { "game": "ntba", "name": "build id", "call": "ntba_build_id", "args": [], "expect": "$ntba_golden" },
    { "game": "ntba", "name": "golden hash", "call": "ntba_golden_hash", "args": [], "expect": "$ntba_golden", "timed": true },
    { "game": "ntba", "name": "script", "call": "ntba_script_hash", "args": [$ntba_ticks], "expect": "$ntba_script" },
    { "game": "ntba", "name": "matches", "call": "ntba_match_hash", "args": [], "expect": "$ntba_matches" },
    { "game": "ntba", "name": "rules", "call": "ntba_rules_hash", "args": [], "expect": "$ntba_rules" },
    { "game": "ntba", "name": "three and four people", "call": "ntba_people_hash", "args": [], "expect": "$ntba_people" },
    { "game": "ntba", "name": "three people", "call": "ntba_people_script_hash", "args": [3, $ntba_ticks], "expect": "$ntba_people3" },
    { "game": "ntba", "name": "four people", "call": "ntba_people_script_hash", "args": [4, $ntba_ticks], "expect": "$ntba_people4" },
    { "game": "dots", "name": "build id", "call": "dots_build_id", "args": [], "expect": "$dots_build_id" },
    { "game": "dots", "name": "golden hash", "call": "dots_golden_hash", "args": [], "expect": "$dots_build_id", "timed": true }
  ]
}
EOF
log "golden hashes in Node (ntba $ntba_golden, dots $dots_build_id)"
"$NODE" tests/golden/check-node.mjs "$golden_dir"
log "golden hashes in wasmtime"
python3 tests/golden/check_wasmtime.py "$golden_dir"

# The NtBA page as players get it (the same build as stage 60's).
WEB_OUT="$TARGET_DIR/ntba-web"
WEB_OUT="$WEB_OUT" WEB_CRATE=ntba-web scripts/build-web.sh
log "building signaling-server"
cargo build --locked -p signaling-server

# A namespace holding only `lo`, with a default route on it: without one
# Firefox's ICE finds no interface to gather on.
in_browser_netns() {
    in_loopback_netns bash -c 'ip route add default dev lo src 127.0.0.1 && exec "$@"' bash "$@"
}

log "golden hashes in headless Chromium and Firefox ESR (loopback-only network namespace)"
in_browser_netns env \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$golden_dir" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    FIREFOX_BIN="$FIREFOX_BIN" \
    "$NODE" --test --test-reporter=spec tests/browser/golden.test.mjs

log "NtBA between Firefox ESR and Chromium over real WebRTC (loopback-only network namespace)"
in_browser_netns env \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$WEB_OUT" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    FIREFOX_BIN="$FIREFOX_BIN" \
    "$NODE" --test --test-reporter=spec tests/browser/firefox-chromium-match.test.mjs

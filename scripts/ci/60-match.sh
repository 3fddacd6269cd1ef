#!/usr/bin/env bash
# NtBA online, end to end (issue 6):
#  1. two wasm instances of NtBA in Node, each running a lockstep session,
#     joined by a simulated lossy link in virtual time (no browser): both
#     must end on the same tick with the same hash;
#  2. the play setup (the NtBA page built in release, served by the embedded
#     signalling server) in real headless Chromium: a match over real WebRTC
#     with scripted keys, leave, a page closed mid-match, local play against
#     the CPU to the end screen, no direct path and Try again, a page of
#     another build refused (tests/browser/match.test.mjs);
#  3. the input log downloaded from the page replayed natively
#     (example ntba_replay) to the final hash the page recorded.
# Browsers and server run in a loopback-only network namespace.
#   scripts/ci/60-match.sh               run it
#   scripts/ci/60-match.sh --screenshot  also refresh docs/match.png
#   scripts/ci/60-match.sh --full        also play one whole online match (about 5 minutes)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_wasm_target
ensure_wasm_bindgen
ensure_node_modules
ensure_chromium
NODE="$ROOT/node_modules/.bin/node"

TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

log "two NtBA wasm instances in Node over a simulated lossy link"
cargo build --locked --release --target wasm32-unknown-unknown -p ntba-wasm-check
module="$TARGET_DIR/wasm32-unknown-unknown/release/ntba_wasm_check.wasm"
"$NODE" scripts/ntba/two-peers.mjs "$module" --latency 40 --jitter 15 --loss 20 --ticks 1800 --seed 7
"$NODE" scripts/ntba/two-peers.mjs "$module" --latency 40 --jitter 15 --loss 20 --ticks 1800 --seed 8 --lockstep

WEB_OUT="$TARGET_DIR/ntba-web"
export WEB_OUT
WEB_CRATE=ntba-web scripts/build-web.sh
# Another game's page beside it (the shell's demo, another build id), for
# the version refusal: served from /demo/ by the same server and lobby.
WEB_OUT="$TARGET_DIR/demo-web" scripts/build-web.sh
rm -rf "$WEB_OUT/demo"
cp -r "$TARGET_DIR/demo-web" "$WEB_OUT/demo"
log "building signaling-server and the replay example"
cargo build --locked -p signaling-server
cargo build --locked --release -p lockstep-examples --example ntba_replay
out="$TARGET_DIR/browser"
mkdir -p "$out"
rm -f "$out/match.log" "$out/match.expect"
shot="$out/match.png"
full=0
for arg in "$@"; do
    case "$arg" in
        --screenshot) shot="$ROOT/docs/match.png" ;;
        --full) full=1 ;;
    esac
done

log "NtBA matches in headless Chromium (loopback-only network namespace)"
in_loopback_netns env \
    NTBA_MATCH=1 \
    NTBA_FULL_MATCH="$full" \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$WEB_OUT" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    MATCH_OUT="$out" \
    MATCH_SCREENSHOT="$shot" \
    "$NODE" --test --test-reporter=spec tests/browser/match.test.mjs

log "replaying the downloaded input log natively"
read -r ticks hash hash600 <"$out/match.expect"
replay="$("$TARGET_DIR/release/examples/ntba_replay" "$out/match.log" --expect "$hash" --ticks "$ticks" --at 600)"
printf '%s\n' "$replay"
if ! grep -qx "after tick 600: state hash $hash600" <<<"$replay"; then
    echo "the native replay's hash after tick 600 differs from the pages' ($hash600)" >&2
    exit 1
fi
log "the native replay reached the pages' hashes (tick 600 and the final tick $ticks)"

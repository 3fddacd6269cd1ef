#!/usr/bin/env bash
# The web shell in real headless Chromium: build the page of the dots example
# (games/dots-web; a small game whose match goes on while nobody presses a
# key, so the match scenario 3 starts still runs in scenario 5), start the
# embedded signalling server serving it, and run the 14 lobby scenarios
# (tests/browser/lobby.test.mjs) with isolated browser contexts and real WebRTC,
# then the abuse scenarios (tests/browser/abuse.test.mjs: a page flooded with
# offers, a peer that pings but sends no inputs, one that never finishes the
# handshake).
# Server and browsers run in a network namespace that holds only `lo`, so no
# test traffic can leave the machine; /ice serves no STUN servers.
#   scripts/ci/50-browser.sh               run the scenarios
#   scripts/ci/50-browser.sh --screenshot  also refresh docs/lobby.png
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_browser_tools

TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
WEB_OUT="$TARGET_DIR/dots-web"
export WEB_OUT
WEB_CRATE=dots-web scripts/build-web.sh
log "building signaling-server"
cargo build --locked -p signaling-server
mkdir -p "$TARGET_DIR/browser"
shot="$TARGET_DIR/browser/lobby.png"
[ "${1:-}" = --screenshot ] && shot="$ROOT/docs/lobby.png"

log "running the browser scenarios in a loopback-only network namespace"
in_loopback_netns env \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$WEB_OUT" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    LOBBY_SCREENSHOT="$shot" \
    node --test --test-reporter=spec tests/browser/lobby.test.mjs

log "running the abuse scenarios (an offer flood, ping-only peers)"
in_loopback_netns env \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$WEB_OUT" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    node --test --test-reporter=spec tests/browser/abuse.test.mjs

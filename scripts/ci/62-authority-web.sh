#!/usr/bin/env bash
# Host-authoritative games in real headless Chromium: the arena page
# (games/arena-web) built in release and served by the embedded signalling
# server; two pages meet in the lobby and play the arena over real WebRTC,
# the host's simulation in a Web Worker, and every ship each page draws is
# compared with the host's state (tests/browser/arena.test.mjs). Server and
# browsers run in a loopback-only network namespace.
#   scripts/ci/62-authority-web.sh
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_browser_tools
NODE="$ROOT/node_modules/.bin/node"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

WEB_OUT="$TARGET_DIR/arena-web" WEB_CRATE=arena-web scripts/build-web.sh
log "building signaling-server"
cargo build --locked -p signaling-server

log "the arena in headless Chromium (loopback-only network namespace)"
in_loopback_netns env \
    ARENA_WEB=1 \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$TARGET_DIR/arena-web" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    "$NODE" --test --test-reporter=spec tests/browser/arena.test.mjs

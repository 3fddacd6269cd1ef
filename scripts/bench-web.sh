#!/usr/bin/env bash
# Prints web shell figures (no pass/fail): the wasm size, then lobby join,
# mesh formation and match set-up times in headless Chromium over loopback
# (tests/browser/bench.mjs), in a loopback-only network namespace.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_node_modules
ensure_chromium
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
# The dots example's page: the figures are the shell's, and its game is the
# smallest (the page stages 45 and 50 test).
export WEB_OUT="$TARGET_DIR/dots-web"
WEB_CRATE=dots-web scripts/build-web.sh
cargo build --locked -p signaling-server
in_loopback_netns env SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" WEB_DIR="$WEB_OUT" \
    CHROMIUM_BIN="$CHROMIUM_BIN" node tests/browser/bench.mjs

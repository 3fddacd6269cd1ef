#!/usr/bin/env bash
# Prints what running the online match in a dedicated worker costs and
# saves (no pass/fail): the main thread's time per frame and the session's
# ping with the match on the page and in the worker, NtBA in headless
# Chromium over loopback (tests/browser/bench-match-worker.mjs), in a
# loopback-only network namespace.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_node_modules
ensure_chromium
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
export WEB_OUT="$TARGET_DIR/ntba-web"
WEB_CRATE=ntba-web scripts/build-web.sh
cargo build --locked -p signaling-server
in_loopback_netns env SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" WEB_DIR="$WEB_OUT" \
    CHROMIUM_BIN="$CHROMIUM_BIN" "$ROOT/node_modules/.bin/node" tests/browser/bench-match-worker.mjs

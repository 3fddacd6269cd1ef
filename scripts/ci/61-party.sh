#!/usr/bin/env bash
# Parties of NtBA on the arcade page (the page scripts/play.sh serves, NtBA
# its first game), end to end, in real headless Chromium: the page built in
# release and served by the embedded signalling server.
# First a challenge's match of two that a third page watches from the
# lobby (Watch next to the guest): the players count it, and all three
# agree on the state and end on the same hash and score. Then three
# people in the lobby and a fourth invited who declines; the three
# play one match over a full mesh of real WebRTC links built through a
# member room, a CPU in the free place, and every page shows the same
# state hash at the confirmed ticks they have in common
# (tests/browser/party.test.mjs); meanwhile one of them, its connections
# closed, comes back into its place through a comeback room. Then four
# people play 2v2 the same way. Then a party of three where one page has
# no direct path: its two pairs go through the server's relay, the third
# pair stays direct; mid-match that page's relay sockets close, and it
# comes back over the relays of a comeback room; the three play in sync.
# Last, the party scenario of the abuse tests (tests/browser/abuse.test.mjs,
# D): a party member whose page sends no inputs has its slot held, as a
# silent player's, until the window runs out and the match ends.
# The README's pictures come from the party test's pages: the title, a
# party invitation, the 2v2 match, the spectator's view and the online
# result, each at 1280x800, 1920x1080 and 390x844, with the court filling
# its column at each size.
# Server and browsers run in a loopback-only network namespace.
#   scripts/ci/61-party.sh               run it (pictures in target/browser/screens)
#   scripts/ci/61-party.sh --screenshot  also refresh docs/screens/*.png
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_browser_tools
NODE="$ROOT/node_modules/.bin/node"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
screens="$TARGET_DIR/browser/screens"
[ "${1:-}" = --screenshot ] && screens="$ROOT/docs/screens"

# The same build as stage 62's (kept as it is when nothing changed).
WEB_OUT="$TARGET_DIR/arcade-web" WEB_CRATE=arcade-web scripts/build-web.sh
log "building signaling-server"
cargo build --locked -p signaling-server

log "NtBA parties in headless Chromium (loopback-only network namespace)"
in_loopback_netns env \
    NTBA_PARTY=1 \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$TARGET_DIR/arcade-web" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    SCREENS_DIR="$screens" \
    "$NODE" --test --test-concurrency=1 --test-reporter=spec tests/browser/party.test.mjs

log "a party member that sends no inputs (abuse scenario D)"
in_loopback_netns env \
    NTBA_PARTY=1 \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$TARGET_DIR/arcade-web" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    "$NODE" --test --test-concurrency=1 --test-reporter=spec --test-name-pattern='^D\. ' tests/browser/abuse.test.mjs

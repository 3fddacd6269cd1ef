#!/usr/bin/env bash
# Games that are not lock-step, and switching games, in real headless
# Chromium. Two pages are built (in release), each served by the embedded
# signalling server: the arcade (games/arcade-web), which carries NtBA, the
# arena, Battleship and dots behind a hub, and the arena's own page
# (games/arena-web), whose parties the arcade's hub does not offer.
# In each scenario two pages meet in the lobby and play over real WebRTC:
#  1. the arena (the arcade's first game), host-authoritative: the host's
#     simulation in a Web Worker, and every ship each page draws compared
#     with the host's state (tests/browser/arena.test.mjs);
#  2. Battleship, hidden-state: a game to the end, every message each page
#     sent checked for cells of its fleet the other had not hit
#     (tests/browser/battleship.test.mjs);
#     these two read the games' test probes, which live where the match
#     runs: they open the arcade with `?match-worker=off` (its hub on the
#     page, as the games' own pages run them);
#  3. switching, as players get it (the whole hub in the match worker):
#     NtBA, the arena, then Battleship to the end, the arena again, then
#     dots (lock-step) to the end, over the one peer connection of the
#     match; and dots picked on the title, named by the challenge, the
#     match opening on it and played to its end; a party of three in
#     dots whose guest's page, then (another party) whose host's page, is
#     closed for good: the two others play on, under a new host in the
#     second (tests/browser/arcade.test.mjs);
#  4. on the arcade page, a tab hidden for 30 s in the middle of NtBA (its
#     first game): the hub's match runs on in the page's match worker at
#     full speed, and both pages' logs agree
#     (tests/browser/hidden-tab.test.mjs, its first test; stage 60 runs it
#     on NtBA's own page);
#  5. on the arena's page, a party of four: the party's host runs the
#     match in its worker for three guests, every page steers for a minute,
#     and every frame each guest draws is compared with the host's state at
#     the same moment, within the bound the test derives from the
#     interpolation delay and the ships' top speed; then a guest leaves and
#     the others play on, and the host leaves
#     (tests/browser/arena-party.test.mjs).
# The same tests run against the games' own pages (WEB_CRATE=arena-web or
# battleship-web scripts/build-web.sh, then WEB_DIR=...).
# Server and browsers run in a loopback-only network namespace.
#   scripts/ci/62-authority-web.sh
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_browser_tools
NODE="$ROOT/node_modules/.bin/node"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

WEB_OUT="$TARGET_DIR/arcade-web" WEB_CRATE=arcade-web scripts/build-web.sh
WEB_OUT="$TARGET_DIR/arena-web" WEB_CRATE=arena-web scripts/build-web.sh
log "building signaling-server"
cargo build --locked -p signaling-server

log "the arena, Battleship and switching games in headless Chromium (loopback-only network namespace)"
in_loopback_netns env \
    ARENA_WEB=1 \
    BATTLESHIP_WEB=1 \
    ARCADE_WEB=1 \
    PAGE_QUERY='?match-worker=off' \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$TARGET_DIR/arcade-web" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    "$NODE" --test --test-concurrency=1 --test-reporter=spec \
    tests/browser/arena.test.mjs tests/browser/battleship.test.mjs tests/browser/arcade.test.mjs

log "a hidden tab on the arcade page in headless Chromium (loopback-only network namespace)"
in_loopback_netns env \
    NTBA_MATCH=1 \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$TARGET_DIR/arcade-web" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    "$NODE" --test --test-reporter=spec --test-name-pattern='hidden for 30 s' \
    tests/browser/hidden-tab.test.mjs

log "an arena party of four in headless Chromium (loopback-only network namespace)"
in_loopback_netns env \
    ARENA_PARTY=1 \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$TARGET_DIR/arena-web" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    "$NODE" --test --test-concurrency=1 --test-reporter=spec \
    tests/browser/arena-party.test.mjs

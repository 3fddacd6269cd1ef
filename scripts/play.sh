#!/usr/bin/env bash
# THE play command: sets up what this machine lacks (the wasm32 target, the
# wasm-bindgen CLI at the version in Cargo.lock, the npm packages), builds
# the NtBA page in release, starts the embedded signalling server serving
# that page, and prints the address to open in two browser windows.
#
#   scripts/play.sh                        NtBA in the browser on http://127.0.0.1:8080
#   scripts/play.sh --listen 0.0.0.0:9000  another address (others on your network can join)
#   scripts/play.sh --watch                the native simulated-link example, drawn in the terminal
#   scripts/play.sh simulated [OPTIONS]    the same example with its own options (try --help)
#
# Any other option is passed to the simulated example, as before the
# browser game existed (see README, Examples).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

listen="127.0.0.1:8080"
case "${1:-}" in
    "") ;;
    --listen)
        listen="${2:?--listen needs an address such as 127.0.0.1:8080}"
        shift 2
        ;;
    simulated)
        shift
        exec cargo run --release --locked -p lockstep-examples --example simulated -- "$@"
        ;;
    -h | --help)
        # The comment block at the top of this file, up to its first code line.
        awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
        exit 0
        ;;
    *) exec cargo run --release --locked -p lockstep-examples --example simulated -- "$@" ;;
esac

ensure_wasm_target
ensure_wasm_bindgen
ensure_node_modules # binaryen's wasm-opt shrinks the page

TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
WEB_OUT="${WEB_OUT:-$TARGET_DIR/play-web}"
WEB_CRATE=ntba-web WEB_OUT="$WEB_OUT" scripts/build-web.sh
log "building the signalling server (release)"
cargo build --release --locked -p signaling-server

server="$TARGET_DIR/release/signaling-server"
log "starting the signalling server with the page on $listen (Ctrl-C stops it)"
"$server" --listen "$listen" --static "$WEB_OUT" > >(
    while IFS= read -r line; do
        case "$line" in
            "listening on "*)
                url="${line#listening on }"
                printf '\n  NtBA is ready. Open %s in two browser windows,\n' "$url"
                printf '  choose Online in each, pick names, and challenge one from the other.\n'
                printf '  Local play (one keyboard, or against the CPU) works in one window.\n\n'
                ;;
            *) printf '%s\n' "$line" ;;
        esac
    done
)

#!/usr/bin/env bash
# The signalling binaries end to end: start `signaling-server` as its own
# process on a free port, read its address from its first line, and run the
# `signaling-conformance` binary against it with the same short timers.
# (cargo test already runs the suite in-process; this checks the CLI, the
# first-line contract and the process as the play command starts it.)
# Then a second server with no --allowed-origins runs the origin checks: the
# default list (signaling_core::defaults::ALLOWED_ORIGINS, the Worker's too)
# refuses a foreign page and allows the server's own origin.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"

cargo build --locked -p signaling-server -p signaling-conformance
bin="${CARGO_TARGET_DIR:-$ROOT/target}/debug"

start_server() {
    : >"$out"
    "$bin/signaling-server" --listen 127.0.0.1:0 "$@" >"$out" 2>"$err" &
    pid=$!
    # Wait (up to 20 s) for the first line, which carries the real port.
    for _ in $(seq 200); do
        [ -s "$out" ] && break
        kill -0 "$pid" 2>/dev/null || { cat "$err" >&2; echo "signaling-server exited early" >&2; exit 1; }
        sleep 0.1
    done
    line="$(head -n 1 "$out")"
    case "$line" in
        "listening on http://127.0.0.1:"*) ;;
        *) echo "unexpected first line: '$line'" >&2; exit 1 ;;
    esac
    url="${line#listening on }"
    log "signaling-server at $url"
}

out="$(mktemp)"; err="$(mktemp)"; pid=
cleanup() { [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; rm -f "$out" "$err"; }
trap cleanup EXIT

start_server --allowed-origins http://good.test \
    --room-ttl-seconds 5 --hello-timeout-ms 1000 --rate-limit-per-minute 600 \
    --lobby-idle-timeout-ms 3000 --max-lobby-sockets-per-ip 4 \
    --relay-ttl-seconds 3 --stun-urls '' --log-level debug

"$bin/signaling-conformance" --base-url "$url" --origin http://good.test \
    --forbidden-origin http://evil.test --room-ttl-seconds 5 --hello-timeout-ms 1000 \
    --rate-limit-per-minute 600 --lobby-idle-timeout-ms 3000 --max-lobby-sockets-per-ip 4 \
    --max-rooms-per-ip 20 --relay-ttl-seconds 3

# Every log line (debug included) is a JSON record with a level, and none
# names a test nickname, a payload or an address.
python3 signaling/conformance/check-logs.py "$err" \
    --require http.request --require lobby.joined --require lobby.kicked --require room.created \
    --require relay.paired --require relay.kicked --require relay.expired

log "the default origin list, on a server started without --allowed-origins"
kill "$pid"; wait "$pid" 2>/dev/null || true
start_server --stun-urls ''
"$bin/signaling-conformance" --base-url "$url" --forbidden-origin http://evil.test --only origin

log "the daily upgrade budget, on a server started with --daily-upgrades 5"
kill "$pid"; wait "$pid" 2>/dev/null || true
start_server --stun-urls '' --daily-upgrades 5
"$bin/signaling-conformance" --base-url "$url" --only daily_budget --daily-upgrades 5
python3 signaling/conformance/check-logs.py "$err" --require http.budget_spent

log "the lobby directory, each address's daily upgrades and the cap on rooms alive, on a server started with --lobbies 3 --daily-upgrades-per-ip 10 --max-rooms 3 (and the default per-address cap, 8)"
kill "$pid"; wait "$pid" 2>/dev/null || true
start_server --stun-urls '' --lobbies 3 --daily-upgrades-per-ip 10 --max-rooms 3
"$bin/signaling-conformance" --base-url "$url" --only lobby_directory --lobbies 3 \
    --max-lobby-sockets-per-ip 8 --only address_upgrade_allowance --daily-upgrades-per-ip 10 \
    --only rooms_alive_cap --max-rooms 3
python3 signaling/conformance/check-logs.py "$err" --require http.address_budget_spent

log "a lobby of five players and nine sockets, on a server started with --max-players 5 --max-lobby-sockets 9"
kill "$pid"; wait "$pid" 2>/dev/null || true
start_server --stun-urls '' --max-players 5 --max-lobby-sockets 9
"$bin/signaling-conformance" --base-url "$url" --only lobby_full_and_busy \
    --players-per-lobby 5 --max-lobby-sockets 9

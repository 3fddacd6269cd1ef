#!/usr/bin/env bash
# The signalling binaries end to end: start `signaling-server` as its own
# process on a free port, read its address from its first line, and run the
# `signaling-conformance` binary against it with the same short timers.
# (cargo test already runs the suite in-process; this checks the CLI, the
# first-line contract and the process as the play command starts it.)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"

cargo build --locked -p signaling-server -p signaling-conformance
bin="${CARGO_TARGET_DIR:-$ROOT/target}/debug"

out="$(mktemp)"; err="$(mktemp)"
"$bin/signaling-server" --listen 127.0.0.1:0 --allowed-origins http://good.test \
    --room-ttl-seconds 3 --hello-timeout-ms 1000 --rate-limit-per-minute 600 \
    --stun-urls '' --log-level debug \
    --relay-ttl-seconds 3 \
    >"$out" 2>"$err" &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$out" "$err"; }
trap cleanup EXIT

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

"$bin/signaling-conformance" --base-url "$url" --origin http://good.test \
    --forbidden-origin http://evil.test --room-ttl-seconds 3 --hello-timeout-ms 1000 \
    --rate-limit-per-minute 600 \
    --relay-ttl-seconds 3

# Every log line (debug included) is a JSON record with a level, and none
# names a test nickname, a payload or an address.
python3 signaling/conformance/check-logs.py "$err" \
    --require http.request --require lobby.joined --require lobby.kicked --require room.created \
    --require relay.paired --require relay.kicked --require relay.expired

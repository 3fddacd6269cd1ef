#!/usr/bin/env bash
# Prints the thousand-player lobby benchmark's figures (no pass/fail
# threshold beyond the benchmark's own: no player refused while the
# directory had room) for the signalling Worker under `wrangler dev`:
# the same benchmark as
#   cargo bench -p signaling-conformance --bench lobby_thousand
# runs against the embedded server (signaling/conformance/benches/lobby_thousand.rs).
#
# wrangler dev serves the Worker on 127.0.0.1 with 64 lobbies (room for
# 1,024 players) and, since every player comes from 127.0.0.1, without the
# per-address lobby cap, the rate limiter or the daily budgets (the
# service's and each address's). Everything
# runs inside a network namespace holding only `lo` when this machine
# allows one (otherwise wrangler stays bound to 127.0.0.1), with wrangler's
# telemetry off. The CPU time and memory reported are those of the workerd
# process that runs the Worker and its Durable Objects.
#
# LOBBY_BENCH_PLAYERS (1 to 1000, default 1000) runs fewer players.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

if [ "${1:-}" = --serve-and-bench ]; then
    bench="$2"
    state="$(mktemp -d)"
    port="$(free_port)"
    base="http://127.0.0.1:$port"
    start_wrangler_dev "$state" "$port" \
        --var LOBBIES:64 --var LOBBY_SOCKETS_PER_IP:0 --var RATE_LIMITER_OFF:1 \
        --var DAILY_UPGRADES:0 --var DAILY_UPGRADES_PER_IP:0 --var LOG_LEVEL:warn
    # The workerd process of this wrangler (its session leader is wrangler).
    workerd="$(ps -o pid=,comm= -s "$wrangler_pid" | awk '$2 == "workerd" { print $1; exit }')"
    log "workerd: ${workerd:-not found}"
    status=0
    LOBBY_BENCH_URL="$base" LOBBY_BENCH_PID="$workerd" "$bench" || status=$?
    if [ "$status" != 0 ]; then
        echo "the benchmark failed; the Worker's output:" >&2
        tail -n 40 "$state/wrangler.log" >&2
    fi
    exit "$status"
fi

ensure_node_modules
log "building the Worker (wasm)"
signaling/worker/build.sh
log "building the benchmark (release)"
bench="$(cargo bench --locked -p signaling-conformance --bench lobby_thousand --no-run \
    --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "lobby_thousand":
        print(m["executable"])')"
[ -x "$bench" ] || die "could not build the lobby_thousand benchmark"
# Each player is a descriptor in the benchmark; workerd needs several per
# player (with 4,096 it ran out at about 570 players): take the hard limit.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if in_loopback_netns true 2>/dev/null; then
    in_loopback_netns env PATH="$PATH" CARGO_TARGET_DIR="$TARGET_DIR" \
        LOBBY_BENCH_PLAYERS="${LOBBY_BENCH_PLAYERS:-}" bash "$0" --serve-and-bench "$bench"
else
    log "no network namespace available here; wrangler stays bound to 127.0.0.1"
    bash "$0" --serve-and-bench "$bench"
fi

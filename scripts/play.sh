#!/usr/bin/env bash
# THE play command: sets up what this machine lacks (the wasm32 target, the
# wasm-bindgen CLI at the version in Cargo.lock, binaryen's wasm-opt from
# npm), builds the arcade page (NtBA, the ship arena, Battleship and dots
# on one page), starts the embedded signalling server serving it, and
# prints the address to open in two browser windows.
#
#   scripts/play.sh                        the arcade in the browser on http://127.0.0.1:8080
#                                          (the next free port if 8080 is taken)
#   scripts/play.sh --page ntba-web        one game's own page instead: ntba-web, dots-web,
#                                          arena-web or battleship-web
#   scripts/play.sh --listen 0.0.0.0:9000  another address (others on your network can join)
#   scripts/play.sh --json-log             show the server's JSON log lines as they come
#   scripts/play.sh --watch                the native simulated-link example, drawn in the terminal
#   scripts/play.sh simulated [OPTIONS]    the same example with its own options (try --help)
#
# Build output goes to target/play/build.log (shown when a step fails), the
# server's JSON log to target/play/server.log. Any other option is passed to
# the simulated example, as before the browser game existed (see README,
# Examples).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

listen=""
json_log=no
page=arcade-web
while [ $# -gt 0 ]; do
    case "$1" in
        --listen)
            [ $# -ge 2 ] || die "--listen needs an address such as 127.0.0.1:8080"
            listen="$2"
            shift 2
            ;;
        --json-log)
            json_log=yes
            shift
            ;;
        --page)
            [ $# -ge 2 ] || die "--page needs a page: arcade-web, ntba-web, dots-web, arena-web or battleship-web"
            case "$2" in
                arcade-web | ntba-web | dots-web | arena-web | battleship-web) page="$2" ;;
                *) die "--page: no page '$2'; choose arcade-web, ntba-web, dots-web, arena-web or battleship-web" ;;
            esac
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
done

# Is something already accepting connections on HOST:PORT? (bash's /dev/tcp;
# a wildcard address is checked on loopback.)
port_taken() {
    local host=$1 port=$2
    case "$host" in 0.0.0.0 | "" | "[::]" | "::") host=127.0.0.1 ;; esac
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
}

# The address, checked before anything is built: a busy port is reported at
# once (or, for the default, the next free one is taken).
if [ -z "$listen" ]; then
    port=8080
    while port_taken 127.0.0.1 "$port"; do
        port=$((port + 1))
        [ "$port" -le 8099 ] || die "ports 8080 to 8099 on 127.0.0.1 are all in use; choose one with --listen 127.0.0.1:PORT."
    done
    [ "$port" = 8080 ] || printf 'Port 8080 is in use by another program, so the game will use %s (choose one with --listen 127.0.0.1:PORT).\n' "$port"
    listen="127.0.0.1:$port"
else
    case "$listen" in
        *:[0-9]*) ;;
        *) die "--listen wants HOST:PORT, such as 127.0.0.1:8080 (got '$listen')." ;;
    esac
    if port_taken "${listen%:*}" "${listen##*:}"; then
        die "$listen is already in use by another program. Stop that program, or choose another port: scripts/play.sh --listen ${listen%:*}:$((${listen##*:} + 1))"
    fi
fi

TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
PLAY_DIR="$TARGET_DIR/play"
WEB_OUT="${WEB_OUT:-$PLAY_DIR/$page}"
BUILD_LOG="$PLAY_DIR/build.log"
SERVER_LOG="$PLAY_DIR/server.log"
mkdir -p "$PLAY_DIR"
: >"$BUILD_LOG"

# What is about to happen, and how long it takes.
if [ ! -f "$PLAY_DIR/ready" ]; then
    cat <<'TXT'
First run: this sets up what is missing (the wasm32 Rust target, the
wasm-bindgen CLI and binaryen; about 3 minutes for the CLI on two idle
cores), then builds the game page and the signalling server (about 2 more
minutes). Later runs rebuild only what changed and start in seconds.
TXT
else
    echo "Starting the game page, $page (rebuilding only what changed)."
fi

# One line per step, with its time; the step's own output goes to the build
# log and is shown only when the step fails.
steps=5
n=0
step() {
    local what=$1 t=$SECONDS status=0
    shift
    n=$((n + 1))
    printf '  [%d/%d] %s ... ' "$n" "$steps" "$what"
    { printf '\n### %s\n' "$what"; } >>"$BUILD_LOG"
    "$@" >>"$BUILD_LOG" 2>&1 || status=$?
    if [ "$status" != 0 ]; then
        printf 'failed\n\n'
        tail -n 40 "$BUILD_LOG" >&2
        die "step '$what' failed (exit status $status); its whole output is in ${BUILD_LOG#"$ROOT"/}."
    fi
    printf 'done (%d s)\n' "$((SECONDS - t))"
}

step "the wasm32 Rust target" ensure_wasm_target
step "the wasm-bindgen CLI $(locked_wasm_bindgen_version)" ensure_wasm_bindgen
step "binaryen's wasm-opt (npm)" ensure_node_modules play
step "the $page page (wasm, optimised for size)" env WEB_CRATE="$page" WEB_OUT="$WEB_OUT" scripts/build-web.sh
# The server is built in the dev profile, as the tests build it: it shares
# their compiled crates and builds in about a third of the release time, and
# a lobby of sixteen does not need more speed.
step "the signalling server" cargo build --locked -p signaling-server
touch "$PLAY_DIR/ready"

# The server's JSON log lines, as readable sentences; every line also goes to
# the log file. Fields are read with sed: the lines come from our own logger,
# one flat object each.
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$2"; }
readable() {
    local line event level
    while IFS= read -r line; do
        printf '%s\n' "$line" >>"$SERVER_LOG"
        if [ "$json_log" = yes ]; then
            printf '%s\n' "$line"
            continue
        fi
        event="$(field event "$line")"
        level="$(field level "$line")"
        case "$event" in
            lobby.joined) printf '  %s  a player joined the lobby (%s online)\n' "$(date +%H:%M:%S)" "$(field players "$line")" ;;
            lobby.left) printf '  %s  a player left the lobby (%s online)\n' "$(date +%H:%M:%S)" "$(field players "$line")" ;;
            lobby.status)
                case "$(field status "$line")" in
                    in-match) printf '  %s  a player went into a match\n' "$(date +%H:%M:%S)" ;;
                    *) printf '  %s  a player'"'"'s match ended (back in the lobby)\n' "$(date +%H:%M:%S)" ;;
                esac
                ;;
            room.created) printf '  %s  a challenge was accepted: setting up a match\n' "$(date +%H:%M:%S)" ;;
            room.done) printf '  %s  a match started (the two browsers are linked directly)\n' "$(date +%H:%M:%S)" ;;
            room.expired) printf '  %s  a match room expired before its players linked\n' "$(date +%H:%M:%S)" ;;
            *)
                case "$level" in
                    warn | error) printf '  %s  server %s: %s (details in %s)\n' "$(date +%H:%M:%S)" "$level" "${event:-?}" "${SERVER_LOG#"$ROOT"/}" ;;
                esac
                ;;
        esac
    done
}

server="$TARGET_DIR/debug/signaling-server"
: >"$SERVER_LOG"
"$server" --listen "$listen" --static "$WEB_OUT" 2> >(readable) | while IFS= read -r line; do
    case "$line" in
        "listening on "*)
            url="${line#listening on }"
            printf '\n  The game is ready. Open %s in two browser windows,\n' "$url"
            [ "$page" != arcade-web ] || printf '  pick a game on the title (NtBA, the arena, Battleship or dots),\n'
            printf '  choose Online in each, pick names, and challenge one from the other.\n'
            printf '  Local play (one keyboard, or against the CPU) works in one window.\n'
            printf '  Ctrl-C stops the server; its log is in %s.\n\n' "${SERVER_LOG#"$ROOT"/}"
            ;;
        *) printf '%s\n' "$line" ;;
    esac
done

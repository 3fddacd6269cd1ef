#!/usr/bin/env bash
# Builds the Worker bundle that wrangler serves and deploys: signaling/worker/build/.
#
#   1. cargo builds the crate for wasm32-unknown-unknown (profile wasm-release);
#   2. the wasm-bindgen CLI (same version as the crate, see scripts/lib.sh)
#      writes the ES-module glue build/index.js and build/index_bg.wasm;
#   3. the glue's `import source` (a newer module syntax) is rewritten to the
#      plain default import of a .wasm file that wrangler understands;
#   4. wasm-opt from npm's binaryen shrinks the module, when it is installed
#      (set WASM_OPT=0 to skip).
#
# js/shim.mjs, the Worker's entry module, wraps the generated glue; wrangler
# bundles the two. We use this instead of the worker-build tool: it is the
# same steps without the 8-minute `cargo install worker-build`, without
# downloads from GitHub, and with an entry module we can read.
#
# wrangler runs this script itself (the [build] command in wrangler.toml), so
# it is quick when nothing changed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
wasm="$target_dir/wasm32-unknown-unknown/wasm-release/signaling_worker.wasm"
out="$here/build"

# scripts/ci/45-worker.sh builds first, then runs wrangler (which calls this
# again) in a network namespace without cargo's registry: skip the rebuild.
if [ "${WORKER_PREBUILT:-0}" = 1 ] && [ -f "$out/index.js" ] && [ -f "$out/index_bg.wasm" ]; then
    exit 0
fi

cd "$root"
# No --locked here: stage 10-rust already checks Cargo.lock for the workspace.
cargo build -p signaling-worker --target wasm32-unknown-unknown --profile wasm-release

# Nothing to do when the bundle is newer than the module cargo produced (and
# than this script).
if [ -f "$out/index.js" ] && [ "$out/index.js" -nt "$wasm" ] && [ "$out/index.js" -nt "$0" ]; then
    exit 0
fi

rm -rf "$out.tmp"
# The two flags make a Rust panic recoverable: wasm-bindgen catches the abort
# and starts a fresh wasm instance on the next call (js/shim.mjs then rebuilds
# each Durable Object's Rust half), as worker-build also arranges.
wasm-bindgen --target module --no-typescript \
    --experimental-reset-state-function --force-enable-abort-handler \
    --out-dir "$out.tmp" --out-name index "$wasm"
sed -i 's/^import source \(.*\.wasm\)/import \1/' "$out.tmp/index.js"
if grep -q '^import source' "$out.tmp/index.js"; then
    echo "build.sh: could not rewrite the wasm import in index.js" >&2
    exit 1
fi

opt="$root/node_modules/.bin/wasm-opt"
if [ "${WASM_OPT:-1}" != 0 ] && [ -x "$opt" ]; then
    # The features rustc's wasm32 target emits, plus exception handling for
    # the abort handler's catch wrappers; nothing newer, so workerd loads it.
    "$opt" -Oz --strip-debug \
        --enable-mutable-globals --enable-sign-ext --enable-nontrapping-float-to-int \
        --enable-bulk-memory --enable-multivalue --enable-reference-types \
        --enable-exception-handling \
        "$out.tmp/index_bg.wasm" -o "$out.tmp/index_bg.opt.wasm"
    mv "$out.tmp/index_bg.opt.wasm" "$out.tmp/index_bg.wasm"
fi

rm -rf "$out"
mv "$out.tmp" "$out"
echo "build.sh: $(wc -c <"$out/index_bg.wasm") bytes of wasm in $out" >&2

#!/usr/bin/env bash
# Formatting, lints (host and wasm32), tests and docs of the whole workspace,
# and the dependency rules of deny.toml (licences, bans, duplicate versions,
# sources).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_wasm_target
ensure_cargo_deny

log "formatting"
cargo fmt --all -- --check
log "clippy (host)"
cargo clippy --workspace --all-targets --locked -- -D warnings
log "clippy (wasm32)"
# Crates that run in the browser or the Worker must also lint clean on wasm32.
WASM_CRATES=(-p lockstep -p ntba -p webrtc-transport -p web-shell -p ntba-web -p signaling-worker -p signaling-core -p signaling-protocol -p netsim-wasm -p authority -p arena -p arena-web -p battleship -p battleship-web -p arcade-web -p dots-web -p dots-wasm-check -p ntba-wasm-check)
cargo clippy --target wasm32-unknown-unknown --locked "${WASM_CRATES[@]}" -- -D warnings
log "tests"
cargo test --workspace --locked
log "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
log "dependency rules"
# Advisories are left out: they need the RustSec database, which CI cannot
# fetch (docs/toolchain.md).
cargo deny --locked check licenses bans sources

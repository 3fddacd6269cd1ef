#!/usr/bin/env bash
# Sets up what is missing and starts the game locally.
# Until the browser game lands, this runs the engine's simulated-link example
# (two peers over a lossy virtual network), passing any arguments through.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
exec cargo run --release --locked -p lockstep-examples --example simulated -- "$@"

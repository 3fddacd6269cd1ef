"""The golden-hash check in wasmtime (Cranelift): every game's check module
in DIR against DIR/spec.json (the spec golden.js describes). Exits 1 on any
mismatch. It checks the hashes only; the replay times come from the
JavaScript engines.

    python3 tests/golden/check_wasmtime.py DIR
"""
import json
import os
import sys

import wasmtime

MASK = 0xFFFF_FFFF_FFFF_FFFF


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: check_wasmtime.py DIR (holding spec.json and the modules it names)", file=sys.stderr)
        return 2
    folder = sys.argv[1]
    with open(os.path.join(folder, "spec.json"), encoding="utf-8") as f:
        spec = json.load(f)
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    exports = {}
    for game, file in spec["modules"].items():
        module = wasmtime.Module.from_file(engine, os.path.join(folder, file))
        exports[game] = wasmtime.Instance(store, module, []).exports(store)
    ok = True
    for game in spec["modules"]:
        parts = []
        game_ok = True
        for c in (c for c in spec["checks"] if c["game"] == game):
            got = exports[game][c["call"]](store, *c["args"]) & MASK
            want = int(c["expect"], 0) & MASK
            part = f"{c['name']} {got:#018x}"
            if got != want:
                part += f" (expected {want:#018x})"
                game_ok = False
            parts.append(part)
        print(f"wasmtime: {game}: {'ok' if game_ok else 'MISMATCH'}: {', '.join(parts)}")
        ok = ok and game_ok
    if not ok:
        print("MISMATCH: wasm in wasmtime does not reproduce the pinned golden hashes", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

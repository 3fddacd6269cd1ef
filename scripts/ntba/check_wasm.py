"""Runs NtBA's determinism check module in wasmtime (Cranelift) and compares
the replayed golden hash with the constant pinned in the Rust source.

    python3 scripts/ntba/check_wasm.py MODULE.wasm 0xEXPECTED
"""
import sys

import wasmtime


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: check_wasm.py MODULE.wasm 0xEXPECTED", file=sys.stderr)
        return 2
    path, expected_text = sys.argv[1], sys.argv[2]
    expected = int(expected_text, 0) & 0xFFFF_FFFF_FFFF_FFFF
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    module = wasmtime.Module.from_file(engine, path)
    instance = wasmtime.Instance(store, module, [])
    exports = instance.exports(store)
    built = exports["ntba_build_id"](store) & 0xFFFF_FFFF_FFFF_FFFF
    replayed = exports["ntba_golden_hash"](store) & 0xFFFF_FFFF_FFFF_FFFF
    print(
        f"wasmtime: build id {built:#018x}, replayed {replayed:#018x}, expected {expected:#018x}"
    )
    if built != expected or replayed != expected:
        print("MISMATCH: wasm in wasmtime does not reproduce the native golden hash", file=sys.stderr)
        return 1
    print("ok: wasmtime agrees with the native golden hash")
    return 0


if __name__ == "__main__":
    sys.exit(main())

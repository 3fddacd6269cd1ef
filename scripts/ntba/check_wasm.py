"""Runs NtBA's determinism check module in wasmtime (Cranelift): replays the
golden script, the two golden matches and the three- and four-person
scripts, hashes the rules' numbers, and compares the hashes with the
constants pinned in the Rust source (GOLDEN_HASH, SCRIPT_HASH, MATCH_HASH,
RULES_HASH, PEOPLE_HASH).

    python3 scripts/ntba/check_wasm.py MODULE.wasm 0xGOLDEN 0xSCRIPT 0xMATCH 0xRULES 0xPEOPLE
"""
import sys

import wasmtime


def main() -> int:
    if len(sys.argv) != 7:
        print("usage: check_wasm.py MODULE.wasm 0xGOLDEN 0xSCRIPT 0xMATCH 0xRULES 0xPEOPLE", file=sys.stderr)
        return 2
    path = sys.argv[1]
    mask = 0xFFFF_FFFF_FFFF_FFFF
    expected, want_script, want_matches, want_rules, want_people = (
        int(a, 0) & mask for a in sys.argv[2:7]
    )
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    module = wasmtime.Module.from_file(engine, path)
    instance = wasmtime.Instance(store, module, [])
    exports = instance.exports(store)
    built = exports["ntba_build_id"](store) & mask
    replayed = exports["ntba_golden_hash"](store) & mask
    script = exports["ntba_script_hash"](store, 3600) & mask
    matches = exports["ntba_match_hash"](store) & mask
    rules = exports["ntba_rules_hash"](store) & mask
    people = exports["ntba_people_hash"](store) & mask
    print(
        f"wasmtime: build id {built:#018x}, replayed {replayed:#018x}, expected {expected:#018x}"
    )
    print(
        f"wasmtime: script {script:#018x} (expected {want_script:#018x}), "
        f"matches {matches:#018x} (expected {want_matches:#018x}), "
        f"rules {rules:#018x} (expected {want_rules:#018x}), "
        f"three and four people {people:#018x} (expected {want_people:#018x})"
    )
    got = (built, replayed, script, matches, rules, people)
    if got != (expected, expected, want_script, want_matches, want_rules, want_people):
        print("MISMATCH: wasm in wasmtime does not reproduce the native golden hashes", file=sys.stderr)
        return 1
    print("ok: wasmtime agrees with the native golden hash")
    return 0


if __name__ == "__main__":
    sys.exit(main())

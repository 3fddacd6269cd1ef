// Loads NtBA's determinism check module (games/ntba-wasm-check, built for
// wasm32-unknown-unknown) in Node, replays the golden script, the two
// golden matches and the three- and four-person scripts, hashes the rules'
// numbers, and compares the hashes with the constants pinned in the Rust
// source (GOLDEN_HASH, SCRIPT_HASH, MATCH_HASH, RULES_HASH, PEOPLE_HASH), bit
// for bit.
// With --bench it also prints ticks per second and save+restore cost.
//
//   node scripts/ntba/check-wasm.mjs MODULE.wasm 0xGOLDEN 0xSCRIPT 0xMATCH 0xRULES 0xPEOPLE [--bench]
import { readFileSync } from 'node:fs';

const [path, goldenText, scriptText, matchText, rulesText, peopleText, ...flags] = process.argv.slice(2);
if (!path || !goldenText || !scriptText || !matchText || !rulesText || !peopleText || peopleText.startsWith('--')) {
  console.error('usage: check-wasm.mjs MODULE.wasm 0xGOLDEN 0xSCRIPT 0xMATCH 0xRULES 0xPEOPLE [--bench]');
  process.exit(2);
}
const u64 = (v) => BigInt.asUintN(64, BigInt(v));
const expected = u64(goldenText);
const hex = (v) => '0x' + BigInt.asUintN(64, v).toString(16).padStart(16, '0');

const { instance } = await WebAssembly.instantiate(readFileSync(path), {});
const x = instance.exports;

const built = u64(x.ntba_build_id());
const replayed = u64(x.ntba_golden_hash());
const script = u64(x.ntba_script_hash(3600));
const matches = u64(x.ntba_match_hash());
const rules = u64(x.ntba_rules_hash());
const people = u64(x.ntba_people_hash());
console.log(`node ${process.version}: build id ${hex(built)}, replayed ${hex(replayed)}, expected ${hex(expected)}`);
console.log(`node: script ${hex(script)} (expected ${hex(u64(scriptText))}), matches ${hex(matches)} (expected ${hex(u64(matchText))}), rules ${hex(rules)} (expected ${hex(u64(rulesText))}), three and four people ${hex(people)} (expected ${hex(u64(peopleText))})`);
if (built !== expected || replayed !== expected || script !== u64(scriptText) || matches !== u64(matchText) || rules !== u64(rulesText) || people !== u64(peopleText)) {
  console.error('MISMATCH: wasm in Node does not reproduce the native golden hashes');
  process.exit(1);
}

if (flags.includes('--bench')) {
  const ticks = 200_000;
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    x.ntba_run_ticks(2026n, ticks);
    const dt = Number(process.hrtime.bigint() - t0) / 1e9;
    best = Math.min(best, dt);
  }
  console.log(`node wasm: ${(ticks / best).toFixed(0)} ticks/s (script pads, best of 5 runs of ${ticks} ticks)`);
  const n = 1_000_000;
  best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    x.ntba_save_restore(n);
    const dt = Number(process.hrtime.bigint() - t0) / 1e9;
    best = Math.min(best, dt);
  }
  console.log(`node wasm: save+restore ${((best * 1e9) / n).toFixed(1)} ns per pair (includes 1,000 setup ticks)`);
  best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    x.ntba_golden_hash();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  console.log(`node wasm: golden hash (every replay, rules hashed) ${best.toFixed(1)} ms, best of 5`);
}
console.log('ok: Node agrees with the native golden hash');

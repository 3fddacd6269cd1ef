// Loads NtBA's determinism check module (games/ntba-wasm-check, built for
// wasm32-unknown-unknown) in Node, replays the golden script and compares
// the hash with the constant pinned in the Rust source, bit for bit.
// With --bench it also prints ticks per second and save+restore cost.
//
//   node scripts/ntba/check-wasm.mjs MODULE.wasm 0xEXPECTED [--bench]
import { readFileSync } from 'node:fs';

const [path, expectedText, ...flags] = process.argv.slice(2);
if (!path || !expectedText) {
  console.error('usage: check-wasm.mjs MODULE.wasm 0xEXPECTED [--bench]');
  process.exit(2);
}
const expected = BigInt.asUintN(64, BigInt(expectedText));
const hex = (v) => '0x' + BigInt.asUintN(64, v).toString(16).padStart(16, '0');

const { instance } = await WebAssembly.instantiate(readFileSync(path), {});
const x = instance.exports;

const built = BigInt.asUintN(64, x.ntba_build_id());
const replayed = BigInt.asUintN(64, x.ntba_golden_hash());
console.log(`node ${process.version}: build id ${hex(built)}, replayed ${hex(replayed)}, expected ${hex(expected)}`);
if (built !== expected || replayed !== expected) {
  console.error('MISMATCH: wasm in Node does not reproduce the native golden hash');
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
}
console.log('ok: Node agrees with the native golden hash');

// The golden-hash check, written once for every JavaScript engine: Node runs
// it from check-node.mjs, Chromium and Firefox from index.html. It
// instantiates each game's check module (plain C-ABI exports, no imports),
// calls the exports the spec names and compares every answer with the value
// pinned in the game's Rust source, bit for bit. It also times the golden
// replay of each game.
//
// The spec (spec.json, written by scripts/ci/55-engines.sh from the pinned
// constants) looks like:
//   { "modules": { "ntba": "ntba_wasm_check.wasm", ... },
//     "checks": [ { "game": "ntba", "name": "golden hash",
//                   "call": "ntba_golden_hash", "args": [],
//                   "expect": "0x8758...", "timed": true }, ... ] }
// A u64 crosses the wasm boundary as an i64, which JavaScript sees as a
// BigInt; a u32 argument is a plain number.

/** `v` as 0x and 16 hex digits (the u64 bits of an i64 BigInt). */
export const hex = (v) => '0x' + BigInt.asUintN(64, BigInt(v)).toString(16).padStart(16, '0');

/**
 * Runs every check of `spec`. `load(file)` resolves with a module's bytes;
 * `now()` is a millisecond clock (performance.now in a page).
 * Resolves with { results, timings, ok }: one result per check
 * ({ game, name, got, expect, ok }), and per timed check the milliseconds
 * one call takes ({ game, name, ms, calls }).
 */
export async function runGolden(spec, load, now) {
  if (!spec || typeof spec.modules !== 'object' || !Array.isArray(spec.checks) || spec.checks.length === 0) {
    throw new Error('the spec has no modules or no checks');
  }
  const exports = {};
  for (const [game, file] of Object.entries(spec.modules)) {
    const { instance } = await WebAssembly.instantiate(await load(file), {});
    exports[game] = instance.exports;
  }
  const results = [];
  const timings = [];
  for (const c of spec.checks) {
    const fn = exports[c.game]?.[c.call];
    if (typeof fn !== 'function') throw new Error(`${c.game}: the module exports no ${c.call}`);
    const got = hex(fn(...c.args));
    const expect = hex(c.expect);
    results.push({ game: c.game, name: c.name, got, expect, ok: got === expect });
    if (c.timed) timings.push({ game: c.game, name: c.name, ...timeCall(() => fn(...c.args), now) });
  }
  return { results, timings, ok: results.every((r) => r.ok) };
}

/**
 * Milliseconds one call of `f` takes: the best of five rounds, each
 * repeating the call until at least 100 ms have passed (so a coarse clock,
 * such as Firefox's 1 ms one, still gives a fine figure).
 */
function timeCall(f, now) {
  let best = Infinity;
  let calls = 0;
  for (let round = 0; round < 5; round++) {
    const t0 = now();
    let n = 0;
    let dt = 0;
    do {
      f();
      n++;
      dt = now() - t0;
    } while (dt < 100);
    calls += n;
    best = Math.min(best, dt / n);
  }
  return { ms: Number(best.toFixed(3)), calls };
}

/** The lines a host prints for a run: one per game, then the timings. */
export function describe(engine, run) {
  const lines = [];
  const games = [...new Set(run.results.map((r) => r.game))];
  for (const g of games) {
    const mine = run.results.filter((r) => r.game === g);
    const parts = mine.map((r) => `${r.name} ${r.got}${r.ok ? '' : ` (expected ${r.expect})`}`);
    lines.push(`${engine}: ${g}: ${mine.every((r) => r.ok) ? 'ok' : 'MISMATCH'}: ${parts.join(', ')}`);
  }
  for (const t of run.timings) {
    lines.push(`${engine}: ${t.game}: ${t.name} replay ${t.ms} ms (best of 5 rounds, ${t.calls} calls)`);
  }
  return lines;
}

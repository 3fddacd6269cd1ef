// The golden-hash check in Node (V8): every game's check module in DIR
// against DIR/spec.json (see golden.js). Exits 1 on any mismatch.
//
//   node tests/golden/check-node.mjs DIR
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runGolden, describe } from './golden.js';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: check-node.mjs DIR (holding spec.json and the modules it names)');
  process.exit(2);
}
const spec = JSON.parse(readFileSync(path.join(dir, 'spec.json'), 'utf8'));
const run = await runGolden(spec, async (file) => readFileSync(path.join(dir, file)), () => performance.now());
for (const line of describe(`node ${process.version}`, run)) console.log(line);
if (!run.ok) {
  console.error('MISMATCH: wasm in Node does not reproduce the pinned golden hashes');
  process.exit(1);
}

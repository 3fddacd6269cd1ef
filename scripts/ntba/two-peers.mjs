// Two wasm instances of NtBA in Node, joined by a simulated lossy link (no
// browser). Each instance of games/ntba-wasm-check runs one side of a
// lockstep session with the CPU at the pad (its peer_* exports); this script
// is the network between them, in virtual time: every datagram is delayed
// by latency ± jitter, the unreliable channel loses the given share of
// datagrams (and may reorder them), the reliable one delivers everything in
// order. Both sides must confirm the target tick with the same state hash,
// and each side's game followed from its input log must match its session.
//
//   node scripts/ntba/two-peers.mjs MODULE.wasm [--latency MS] [--jitter MS]
//        [--loss PERCENT] [--ticks N] [--seed N] [--lockstep]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const path = args[0];
if (!path || path.startsWith('--')) {
  console.error('usage: two-peers.mjs MODULE.wasm [--latency MS] [--jitter MS] [--loss PERCENT] [--ticks N] [--seed N] [--lockstep]');
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(args[i + 1]);
};
const latency = opt('latency', 40);
const jitter = opt('jitter', 10);
const loss = opt('loss', 10) / 100;
const target = opt('ticks', 1800);
const seed = opt('seed', 1);
const window = args.includes('--lockstep') ? 0 : 8;

// A small seeded generator (mulberry32), so a run is reproducible.
let rng = (seed * 0x9e3779b9) >>> 0;
const random = () => {
  rng = (rng + 0x6d2b79f5) >>> 0;
  let t = rng;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const bytes = readFileSync(path);
const instances = [];
for (let i = 0; i < 2; i++) {
  const { instance } = await WebAssembly.instantiate(bytes, {});
  instances.push(instance.exports);
}
const [host, guest] = instances;
if (host.peer_start(1, BigInt(seed), window, target) !== 1 || guest.peer_start(0, 0n, 0, target) !== 1) {
  console.error('a session refused its configuration');
  process.exit(1);
}

// In flight: { at, to, channel, data, seq } sorted by delivery time; the
// reliable channel keeps its order per direction (never delivered before
// an earlier reliable datagram).
const inFlight = [];
const lastReliableAt = [0, 0];
let sent = 0;
let lost = 0;
let seq = 0;
function collect(from, now) {
  const x = instances[from];
  for (;;) {
    const r = x.peer_transmit();
    if (r < 0) break;
    const channel = r >>> 16;
    const len = r & 0xffff;
    const ptr = Number(x.peer_buffer());
    const data = new Uint8Array(x.memory.buffer, ptr, len).slice();
    sent++;
    if (channel === 1 && random() < loss) { lost++; continue; }
    let at = now + Math.max(0, latency + (random() * 2 - 1) * jitter);
    if (channel === 0) {
      at = Math.max(at, lastReliableAt[from]);
      lastReliableAt[from] = at;
    }
    inFlight.push({ at, to: 1 - from, channel, data, seq: seq++ });
  }
}
function deliver(now) {
  inFlight.sort((a, b) => a.at - b.at || a.seq - b.seq);
  while (inFlight.length && inFlight[0].at <= now) {
    const d = inFlight.shift();
    const x = instances[d.to];
    const ptr = Number(x.peer_buffer()); // first: it may grow the memory
    new Uint8Array(x.memory.buffer, ptr, d.data.length).set(d.data);
    x.peer_receive(BigInt(Math.floor(d.at)), d.channel, d.data.length);
  }
}

const hex = (v) => '0x' + BigInt.asUintN(64, v).toString(16).padStart(16, '0');
const maxFrames = target * 4 + 3600;
let frame = 0;
let now = 0;
for (; frame < maxFrames; frame++) {
  now = Math.floor((frame * 50) / 3); // 60 frames a second, in whole ms
  deliver(now);
  for (let i = 0; i < 2; i++) {
    instances[i].peer_frame(BigInt(now));
    collect(i, now);
  }
  const done = instances.every((x) => x.peer_target_hash() !== 0n);
  const ended = instances.some((x) => x.peer_outcome() >= 0);
  if (done || ended) break;
}

const report = instances.map((x, side) => {
  const score = x.peer_score();
  const rb = x.peer_rollbacks();
  return {
    side,
    tick: x.peer_tick(),
    confirmed: x.peer_confirmed_tick(),
    hash: hex(x.peer_target_hash()),
    outcome: x.peer_outcome(),
    followErrors: x.peer_follow_errors(),
    delay: x.peer_input_delay(),
    score: `${score >>> 16}-${score & 0xffff}`,
    stalled: Number(x.peer_stalled_frames()),
    rollbacks: Number(rb >> 32n),
    resimulated: Number(rb & 0xffffffffn),
  };
});
const mode = window ? `rollback (window ${window})` : 'lock-step';
console.log(`two NtBA wasm peers, ${mode}, ${latency} ms ± ${jitter} ms, ${(loss * 100).toFixed(0)}% loss, seed ${seed}: `
  + `${frame} frames (${(now / 1000).toFixed(1)} s virtual), ${sent} datagrams, ${lost} lost`);
for (const r of report) {
  console.log(`  side ${r.side}: tick ${r.tick}, confirmed ${r.confirmed}, hash after tick ${target} ${r.hash}, `
    + `score ${r.score}, input delay ${r.delay}, stalled frames ${r.stalled}, rollbacks ${r.rollbacks} `
    + `(${r.resimulated} ticks re-simulated), outcome ${r.outcome}, follow errors ${r.followErrors}`);
}
const [a, b] = report;
const ok = a.outcome < 0 && b.outcome < 0 && a.hash === b.hash && a.hash !== hex(0n)
  && a.followErrors === 0 && b.followErrors === 0;
if (!ok) {
  console.error(`FAILED: the two peers did not confirm tick ${target} with the same hash`);
  process.exit(1);
}
console.log(`ok: both peers confirmed tick ${target} with the same state hash ${a.hash}`);

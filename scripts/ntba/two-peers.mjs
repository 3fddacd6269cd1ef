// Two wasm instances of NtBA in Node, joined by the project's simulated
// link (no browser). Each instance of games/ntba-wasm-check runs one side
// of a lockstep session with the CPU at the pad (its peer_* exports); a
// third module, transports/netsim-wasm, is the network between them: the
// netsim crate itself, in virtual time, with latency ± jitter, loss,
// duplication and reordering on the unreliable channel and an in-order
// reliable channel whose lost attempts arrive a retransmission delay later.
// This script only copies bytes between the three modules and moves the
// clock: 60 frames a second, every datagram handed to its peer at the
// virtual millisecond the link delivers it. Both sides must confirm the
// target tick with the same state hash, and each side's game followed from
// its input log must match its session.
//
//   node scripts/ntba/two-peers.mjs NTBA.wasm LINK.wasm [--latency MS]
//        [--jitter MS] [--loss PERCENT] [--dup PERCENT] [--reorder PERCENT]
//        [--reorder-ms MS] [--retransmit-ms MS] [--ticks N] [--seed N]
//        [--lockstep]
//
// Why this loop is JavaScript and not the engine's test driver
// (lockstep/testing): the driver holds every session and link in one
// program and one memory, and steps them in one call. Here each peer is a
// wasm instance of its own, with its own memory, as two browsers are, and
// the link is a third; only bytes cross between them. What moves the bytes
// and the clock has to sit outside all three modules, in the host, so it
// is this script; it keeps the driver's schedule (60 frames a second,
// each datagram delivered at the millisecond it arrives).
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const [ntbaPath, linkPath] = args;
if (!ntbaPath || !linkPath || ntbaPath.startsWith('--') || linkPath.startsWith('--')) {
  console.error('usage: two-peers.mjs NTBA.wasm LINK.wasm [--latency MS] [--jitter MS] [--loss PERCENT] '
    + '[--dup PERCENT] [--reorder PERCENT] [--reorder-ms MS] [--retransmit-ms MS] [--ticks N] [--seed N] [--lockstep]');
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v < 0) {
    console.error(`--${name} needs a whole number, not ${args[i + 1]}`);
    process.exit(2);
  }
  return v;
};
const latency = opt('latency', 40);
const jitter = opt('jitter', 10);
const loss = opt('loss', 10);
const dup = opt('dup', 0);
const reorder = opt('reorder', 0);
const reorderMs = opt('reorder-ms', 20);
const retransmitMs = opt('retransmit-ms', 200);
const target = opt('ticks', 1800);
const seed = opt('seed', 1);
const window = args.includes('--lockstep') ? 0 : 8;

const ntbaBytes = readFileSync(ntbaPath);
const instances = [];
for (let i = 0; i < 2; i++) {
  const { instance } = await WebAssembly.instantiate(ntbaBytes, {});
  instances.push(instance.exports);
}
const { instance: linkInstance } = await WebAssembly.instantiate(readFileSync(linkPath), {});
const link = linkInstance.exports;
if (link.link_new(latency, jitter, loss, dup, reorder, reorderMs, retransmitMs, BigInt(seed)) !== 1) {
  console.error('the link refused its conditions (a percentage above 100, or jitter above the latency)');
  process.exit(2);
}
const [host, guest] = instances;
if (host.peer_start(1, BigInt(seed), window, target) !== 1 || guest.peer_start(0, 0n, 0, target) !== 1) {
  console.error('a session refused its configuration');
  process.exit(1);
}

/** Copies `len` bytes at `ptr` of module `from` to `ptr2` of module `to`. */
function copy(from, ptr, len, to, ptr2) {
  new Uint8Array(to.memory.buffer, ptr2, len).set(new Uint8Array(from.memory.buffer, ptr, len));
}

// Everything peer `from` wants to send goes into the link at its clock.
function collect(from) {
  const x = instances[from];
  for (;;) {
    const r = x.peer_transmit();
    if (r < 0) break;
    const channel = r >>> 16;
    const len = r & 0xffff;
    const dst = Number(link.link_buffer()); // first: it may grow the memory
    copy(x, Number(x.peer_buffer()), len, link, dst);
    const sent = link.link_send(from, channel, len);
    if (sent !== 0 && sent !== -3) throw new Error(`the link refused a datagram (${sent})`);
  }
}

// Every delivery up to `now`, in time order, each at its own millisecond.
function deliver(now) {
  for (;;) {
    const next = [0, 1].map((to) => link.link_next_time(to)).filter((t) => t >= 0n);
    if (!next.length) break;
    const t = next.reduce((a, b) => (b < a ? b : a));
    if (t > BigInt(now)) break;
    link.link_advance(t);
    for (let to = 0; to < 2; to++) {
      const x = instances[to];
      for (;;) {
        const r = link.link_recv(to);
        if (r < 0) break;
        const channel = r >>> 16;
        const len = r & 0xffff;
        const dst = Number(x.peer_buffer()); // first: it may grow the memory
        copy(link, Number(link.link_buffer()), len, x, dst);
        x.peer_receive(t, channel, len);
      }
    }
  }
  link.link_advance(BigInt(now));
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
    collect(i);
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
// Link counters, both directions added: 0 sent, 2 lost, 3 duplicated,
// 4 reordered, 5 reliable retransmissions.
const stat = (which) => Number(link.link_stat(0, which) + link.link_stat(1, which));
const net = { sent: stat(0), lost: stat(2), duplicated: stat(3), reordered: stat(4), retransmitted: stat(5) };
console.log(`two NtBA wasm peers over netsim, ${mode}, ${latency} ms ± ${jitter} ms, ${loss}% loss, `
  + `${dup}% duplicated, ${reorder}% reordered (+${reorderMs} ms), reliable resend ${retransmitMs} ms, seed ${seed}: `
  + `${frame} frames (${(now / 1000).toFixed(1)} s virtual), ${net.sent} datagrams, ${net.lost} lost, `
  + `${net.duplicated} duplicated, ${net.reordered} reordered, ${net.retransmitted} reliable resends`);
for (const r of report) {
  console.log(`  side ${r.side}: tick ${r.tick}, confirmed ${r.confirmed}, hash after tick ${target} ${r.hash}, `
    + `score ${r.score}, input delay ${r.delay}, stalled frames ${r.stalled}, rollbacks ${r.rollbacks} `
    + `(${r.resimulated} ticks re-simulated), outcome ${r.outcome}, follow errors ${r.followErrors}`);
}
const [a, b] = report;
// The conditions asked for must have happened, or the run proves less.
const want = [['lost', loss], ['duplicated', dup], ['reordered', reorder], ['retransmitted', loss]];
for (const [k, pct] of want) {
  if (pct > 0 && net[k] === 0) {
    console.error(`FAILED: ${pct}% asked for, but no datagram was ${k}`);
    process.exit(1);
  }
}
const ok = a.outcome < 0 && b.outcome < 0 && a.hash === b.hash && a.hash !== hex(0n)
  && a.followErrors === 0 && b.followErrors === 0;
if (!ok) {
  console.error(`FAILED: the two peers did not confirm tick ${target} with the same hash`);
  process.exit(1);
}
console.log(`ok: both peers confirmed tick ${target} with the same state hash ${a.hash}`);

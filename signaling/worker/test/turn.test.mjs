// GET /ice with TURN configured, on the real Workers runtime (`wrangler dev`),
// against a local stand-in for Cloudflare's TURN API (turn-api-stand-in.mjs).
//
// Run by scripts/ci/45-worker.sh, which starts wrangler with the two TURN
// secrets in a generated env file, TURN_API_BASE=http://127.0.0.1:TURN_PORT,
// TURN_TTL_SECONDS and one STUN URL, and passes:
//   WORKER_URL          the Worker's base URL
//   TURN_PORT           where this test runs the stand-in
//   TURN_KEY_ID, TURN_KEY_API_TOKEN, TURN_TTL_SECONDS, STUN_URL  as given to the Worker
//   WRANGLER_LOG        wrangler's output file (the Worker's console lines)
//
// Checks: minted credentials reach the page with the STUN entry, and the
// stand-in saw exactly the request the real API expects; when the API fails
// (500, a body that is not JSON, no answer at all, an answer that stops
// half-way, nothing listening) /ice
// still answers 200 with STUN only and the Worker logs one `ice.turn_failed`
// warning with a fixed reason; a hung or stalled call is abandoned
// (connection closed) after the Worker's timeout; no secret or minted credential ever
// appears in wrangler's output.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { startStandIn, USABLE_URLS } from './turn-api-stand-in.mjs';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const WORKER_URL = env('WORKER_URL');
const TURN_PORT = Number(env('TURN_PORT'));
const KEY_ID = env('TURN_KEY_ID');
const TOKEN = env('TURN_KEY_API_TOKEN');
const TTL = Number(env('TURN_TTL_SECONDS'));
const STUN_URL = env('STUN_URL');
const WRANGLER_LOG = env('WRANGLER_LOG');

/** Generous: the Worker gives up on the API after 3 s. */
const DEADLINE_MS = 30_000;
const STUN_ONLY = { iceServers: [{ urls: [STUN_URL] }] };

let api;
let apiOpen = false;
before(async () => {
  api = await startStandIn({ port: TURN_PORT, keyId: KEY_ID, token: TOKEN });
  apiOpen = true;
});
after(async () => {
  if (apiOpen) await api.close();
});

async function getIce() {
  const started = performance.now();
  const r = await fetch(`${WORKER_URL}/ice`, { signal: AbortSignal.timeout(DEADLINE_MS) });
  const text = await r.text();
  assert.equal(r.status, 200, `GET /ice: ${r.status} ${text}`);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  return { body: JSON.parse(text), ms: performance.now() - started };
}

/** The Worker's JSON log records in wrangler's output so far. */
async function workerRecords() {
  const text = await fs.readFile(WRANGLER_LOG, 'utf8');
  const records = [];
  for (let line of text.split('\n')) {
    line = line.replace(/\x1b\[[0-9;]*m/g, '');
    const at = line.indexOf('{');
    if (at < 0) continue;
    try {
      records.push(JSON.parse(line.slice(at)));
    } catch {
      // wrangler's own lines may hold braces; the log check of the stage
      // is the strict one.
    }
  }
  return records;
}

/** Waits until the n-th `ice.turn_failed` record is written; returns it. */
async function nthTurnFailure(n) {
  const until = Date.now() + DEADLINE_MS;
  for (;;) {
    const failures = (await workerRecords()).filter((r) => r.event === 'ice.turn_failed');
    if (failures.length >= n) {
      assert.equal(failures.length, n, `more ice.turn_failed records than failed calls: ${JSON.stringify(failures)}`);
      return failures[n - 1];
    }
    if (Date.now() > until) assert.fail(`no ice.turn_failed record number ${n} within ${DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitFor(what, cond) {
  const until = Date.now() + DEADLINE_MS;
  while (!cond()) {
    if (Date.now() > until) assert.fail(`${what} did not happen within ${DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function assertExactlyOneProperRequest(seen) {
  assert.equal(seen.length, 1, `the API saw ${seen.length} requests`);
  const [req] = seen;
  assert.equal(req.method, 'POST');
  assert.equal(req.path, `/v1/turn/keys/${KEY_ID}/credentials/generate-ice-servers`);
  assert.equal(req.authorization, `Bearer ${TOKEN}`);
  assert.match(req.contentType, /^application\/json/);
  assert.deepEqual(JSON.parse(req.body), { ttl: TTL });
}

test('minted TURN credentials are handed out next to the STUN entry', async () => {
  api.setMode('ok');
  const before = api.requests.length;
  const { body } = await getIce();
  assertExactlyOneProperRequest(api.requests.slice(before));
  assert.equal(api.minted.length, 1);
  const [{ username, credential }] = api.minted;
  assert.deepEqual(body, {
    iceServers: [
      { urls: [STUN_URL] },
      { urls: USABLE_URLS, username, credential },
    ],
  });
});

test('each call mints fresh credentials', async () => {
  api.setMode('ok');
  const before = api.requests.length;
  const { body } = await getIce();
  assertExactlyOneProperRequest(api.requests.slice(before));
  assert.equal(api.minted.length, 2);
  assert.notEqual(api.minted[1].username, api.minted[0].username);
  assert.equal(body.iceServers[1].username, api.minted[1].username);
  assert.equal(body.iceServers[1].credential, api.minted[1].credential);
});

// Each failure: STUN only, one proper request, one warning with a fixed
// reason; `n` counts the failures so far.
const failures = [
  { mode: 'error', reason: 'status', status: 500 },
  { mode: 'garbage', reason: 'answer', status: 0 },
  { mode: 'hang', reason: 'timeout', status: 0 },
  { mode: 'stall', reason: 'timeout', status: 0 },
];
failures.forEach(({ mode, reason, status }, i) => {
  test(`the API failing (${mode}) leaves STUN only and a warning (${reason})`, async () => {
    api.setMode(mode);
    const before = api.requests.length;
    const { body, ms } = await getIce();
    assert.deepEqual(body, STUN_ONLY);
    const seen = api.requests.slice(before);
    assertExactlyOneProperRequest(seen);
    const record = await nthTurnFailure(i + 1);
    assert.equal(record.level, 'warn');
    assert.equal(record.reason, reason);
    assert.equal(record.status, status);
    if (mode === 'hang' || mode === 'stall') {
      console.log(`# /ice answered after ${Math.round(ms)} ms with the API ${mode === 'hang' ? 'silent' : 'stalled mid-body'}`);
      assert.equal(seen[0].answered, false);
      // The Worker aborts its call: the stand-in sees the connection go.
      await waitFor('the hung API call being closed by the Worker', () => seen[0].closed);
    }
  });
});

test('nothing listening at the API leaves STUN only and a warning (request)', async () => {
  await api.close();
  apiOpen = false;
  const { body } = await getIce();
  assert.deepEqual(body, STUN_ONLY);
  const record = await nthTurnFailure(failures.length + 1);
  assert.equal(record.level, 'warn');
  assert.equal(record.reason, 'request');
});

test("no secret and no minted credential appears in wrangler's output", async () => {
  const text = await fs.readFile(WRANGLER_LOG, 'utf8');
  assert.ok(api.minted.length >= 2);
  const secrets = [KEY_ID, TOKEN, ...api.minted.flatMap((p) => [p.username, p.credential])];
  for (const s of secrets) assert.ok(!text.includes(s), 'a TURN secret or minted credential is in the log');
  assert.ok(text.includes('ice.turn_failed'), 'the log is the Worker\'s');
});

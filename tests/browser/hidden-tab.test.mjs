// The online match runs in a dedicated worker, so it goes on at full speed
// while one player's tab is hidden; and a worker that crashes ends the match
// cleanly with the page's message. NtBA page, embedded signalling server,
// real WebRTC. Runs only with NTBA_MATCH=1 (scripts/ci/60-match.sh). The
// first test also runs on the arcade page, whose first game is NtBA and
// whose hub runs whole in the worker (scripts/ci/62-authority-web.sh).
//
// Why this Chromium is driven over its own DevTools socket and not through
// Playwright: Playwright keeps every page it drives "visible and focused"
// (it emulates focus on each page and launches Chromium with
// --disable-background-timer-throttling, --disable-renderer-backgrounding
// and --disable-backgrounding-occluded-windows), so none of its pages can
// become a background tab. Here Chromium runs headless without those
// switches, each player in a browser context (a window) of their own, and a
// player's tab is hidden exactly as a person hides it: another tab of the
// same window is brought to the front (Target.activateTarget). Chromium
// then does to the page what it does to any background tab: the page's
// document.visibilityState turns "hidden", requestAnimationFrame stops and
// the page's timers are throttled to about one wake-up a second. The test
// checks all three on the hidden page, so a Chromium that stopped doing so
// would fail it rather than pass it by accident.
//
// Every wait is on a DOM condition with a deadline; the 30 s the tab stays
// hidden is the scenario itself, not a wait for something to happen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, CHROMIUM, DEADLINE } from './harness.mjs';

const enabled = process.env.NTBA_MATCH === '1';
const HIDDEN_MS = 30_000;

let server;
let chrome;

/** Chromium, headless, driven over its DevTools socket (see the top). */
async function launchChromium() {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'hidden-tab-'));
  const proc = spawn(CHROMIUM, ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic',
    '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--allow-loopback-in-peer-connection', '--remote-debugging-port=0', `--user-data-dir=${profile}`,
    // A process group of its own: stopping Chromium's processes must not
    // reach the test runner's group.
    'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const url = await new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${err}`)), DEADLINE);
    proc.stderr.on('data', (d) => {
      err += d;
      const m = /DevTools listening on (ws:\S+)/.exec(err);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    proc.once('exit', (code) => reject(new Error(`Chromium exited (${code}): ${err}`)));
  });
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  let next = 0;
  const pending = new Map();
  const listeners = [];
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.id !== undefined && pending.has(m.id)) {
      const { resolve, reject } = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) reject(new Error(`${m.error.message}`)); else resolve(m.result);
    } else if (m.method) {
      for (const l of listeners) l(m);
    }
  };
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = ++next;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params, sessionId }));
  });
  const close = async () => {
    ws.close();
    const exited = new Promise((resolve) => (proc.exitCode !== null ? resolve() : proc.once('exit', resolve)));
    try { process.kill(-proc.pid, 'SIGTERM'); } catch { /* already gone */ }
    await exited;
    rmSync(profile, { recursive: true, force: true });
  };
  return { send, on: (f) => listeners.push(f), close };
}

/**
 * A player's tab: a browser context of its own (its own storage and
 * window), the page loaded, its console errors and uncaught exceptions
 * kept in `errors`.
 */
async function openTab(url) {
  const { browserContextId } = await chrome.send('Target.createBrowserContext');
  // As the other browser tests do: media permission lets the page's peer
  // connections offer host candidates on loopback.
  await chrome.send('Browser.grantPermissions', {
    browserContextId, origin: new URL(url).origin, permissions: ['audioCapture', 'videoCapture'],
  });
  const { targetId } = await chrome.send('Target.createTarget', { url: 'about:blank', browserContextId, newWindow: true });
  const { sessionId } = await chrome.send('Target.attachToTarget', { targetId, flatten: true });
  const tab = { browserContextId, targetId, sessionId, errors: [] };
  chrome.on((m) => {
    if (m.sessionId !== sessionId) return;
    if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error') {
      tab.errors.push(m.params.args.map((a) => a.value ?? a.description ?? '').join(' '));
    } else if (m.method === 'Runtime.exceptionThrown') {
      tab.errors.push(`uncaught: ${m.params.exceptionDetails.exception?.description ?? m.params.exceptionDetails.text}`);
    }
  });
  await chrome.send('Runtime.enable', {}, sessionId);
  await chrome.send('Page.enable', {}, sessionId);
  await chrome.send('Page.navigate', { url }, sessionId);
  tab.eval = async (expression) => {
    const r = await chrome.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId);
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
  };
  tab.waitFor = async (expression, what, timeout = DEADLINE) => {
    const until = Date.now() + timeout;
    for (;;) {
      const v = await tab.eval(`(() => { try { return ${expression}; } catch { return false; } })()`);
      if (v) return v;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100)); // polling a DOM condition
    }
  };
  tab.match = () => tab.eval("({ ...document.querySelector('#match').dataset })");
  return tab;
}

const click = (sel) => `(document.querySelector(${JSON.stringify(sel)}).click(), true)`;
/** The roster entry of `name` (the page shows it as "Name#code"). */
const rosterButton = (name, action) => `[...document.querySelectorAll('#roster li')]
  .find((li) => li.querySelector('.name')?.textContent.startsWith(${JSON.stringify(`${name}#`)}))
  ?.querySelector('button[data-action="${action}"]')`;

async function joinLobby(tab, name) {
  // The button works once the page's module has started: until the name
  // prompt shows, click it again.
  await tab.waitFor(`(document.querySelector('#btn-online')?.click(),
    !document.querySelector('#name').closest('[hidden]'))`, 'the name prompt');
  await tab.eval(`(() => { const n = document.querySelector('#name'); n.value = ${JSON.stringify(name)};
    n.dispatchEvent(new Event('input', { bubbles: true })); return true; })()`);
  await tab.eval(click('#join'));
}

async function startMatch(a, b, aName, bName) {
  await a.waitFor(`${rosterButton(bName, 'challenge')} != null`, `${bName} in ${aName}'s roster`);
  await a.eval(`(${rosterButton(bName, 'challenge')}.click(), true)`);
  await b.waitFor(`${rosterButton(aName, 'accept')} != null`, `${aName}'s challenge`);
  await b.eval(`(${rosterButton(aName, 'accept')}.click(), true)`);
  for (const t of [a, b]) await t.waitFor("document.querySelector('#match').dataset.state === 'running'", 'the running match');
}

/** Brings a new tab of `tab`'s window to the front: `tab` is then hidden. */
async function hide(tab) {
  const { targetId } = await chrome.send('Target.createTarget', { url: 'about:blank', browserContextId: tab.browserContextId });
  await chrome.send('Target.activateTarget', { targetId });
  return targetId;
}

before(async () => {
  if (!enabled) return;
  server = await startServer();
  chrome = await launchChromium();
});

after(async () => {
  if (!enabled) return;
  await chrome?.close();
  await server?.stop();
});

test('a tab hidden for 30 s mid-match: its worker keeps the match running, the other player sees no stall, both end in sync', { skip: !enabled }, async () => {
  const ada = await openTab(server.url);
  const bo = await openTab(server.url);
  await joinLobby(ada, 'Ada');
  await joinLobby(bo, 'Bo');
  await startMatch(ada, bo, 'Ada', 'Bo');
  await bo.waitFor("Number(document.querySelector('#match').dataset.tick) >= 120", 'two seconds of the match');

  // What the hidden page's main thread gets to do: animation frames, a
  // 10 ms timer, and the visibility it is told.
  await ada.eval(`(() => {
    window.__raf = 0; const f = () => { window.__raf++; requestAnimationFrame(f); }; requestAnimationFrame(f);
    window.__timer = 0; setInterval(() => { window.__timer++; }, 10);
    window.__seen = []; document.addEventListener('visibilitychange', () => window.__seen.push(document.visibilityState));
    return true; })()`);
  await ada.waitFor('window.__raf > 5', 'animation frames while visible');
  const cover = await hide(ada);
  await ada.waitFor("document.visibilityState === 'hidden'", 'the tab hidden');
  const a0 = await ada.eval('({ raf: window.__raf, timer: window.__timer })');
  const stats = (m) => Object.fromEntries(m.stats.match(/(\w+) (\d+)/g).map((kv) => kv.split(' ')).map(([k, v]) => [k, Number(v)]));
  const b0 = await bo.match();
  const t0 = Date.now();
  // Bo's page for the 30 s: its waiting line sampled every 250 ms.
  let waitingSamples = 0;
  let samples = 0;
  while (Date.now() - t0 < HIDDEN_MS) {
    await new Promise((resolve) => setTimeout(resolve, 250)); // the sampling period of the scenario
    const m = await bo.match();
    assert.notEqual(m.state, 'ended', `Bo's match ended while Ada's tab was hidden: ${await bo.eval("document.querySelector('#result-text').textContent")}`);
    samples += 1;
    if (m.waiting === '1') waitingSamples += 1;
  }
  const elapsed = Date.now() - t0;
  const b1 = await bo.match();
  const a1 = await ada.eval('({ raf: window.__raf, timer: window.__timer, state: document.visibilityState, seen: window.__seen })');

  // The page really was a background tab the whole time.
  assert.equal(a1.state, 'hidden', 'still hidden after 30 s');
  assert.deepEqual(a1.seen, ['hidden']);
  assert.ok(a1.raf - a0.raf <= 2, `animation frames stopped while hidden (${a1.raf - a0.raf} ran)`);
  const timerRuns = a1.timer - a0.timer;
  assert.ok(timerRuns < elapsed / 10 / 5, `the page's 10 ms timer was throttled (${timerRuns} runs in ${elapsed} ms)`);

  // Bo's match went on at its own pace: at least 80 % of 60 ticks a second
  // (the loopback link adds nothing; the margin is for a busy machine), and
  // few stalled frames.
  const ticks = Number(b1.tick) - Number(b0.tick);
  const [s0, s1] = [stats(b0), stats(b1)];
  const frames = s1.frames - s0.frames;
  const stalled = s1.stalled - s0.stalled;
  const figures = { hidden_ms: elapsed, bo_ticks: ticks, bo_ticks_per_s: Number((ticks / elapsed * 1000).toFixed(1)),
    bo_frames: frames, bo_stalled_frames: stalled, bo_waiting_samples: `${waitingSamples}/${samples}`,
    hidden_page_timer_runs: timerRuns, hidden_page_animation_frames: a1.raf - a0.raf };
  console.log(`hidden-tab figures: ${JSON.stringify(figures)}`);
  assert.ok(ticks >= elapsed / 1000 * 60 * 0.8, `Bo ran ${ticks} ticks in ${elapsed} ms`);
  assert.ok(stalled <= frames / 10, `Bo stalled ${stalled} of ${frames} frames`);
  assert.ok(waitingSamples <= samples / 10, `Bo showed "Waiting" in ${waitingSamples} of ${samples} samples`);

  // Ada comes back: the page shows the match where the worker has it.
  await chrome.send('Target.closeTarget', { targetId: cover });
  await chrome.send('Target.activateTarget', { targetId: ada.targetId });
  await ada.waitFor("document.visibilityState === 'visible'", 'the tab visible again');
  await ada.waitFor(`Number(document.querySelector('#match').dataset.tick) >= ${Number(b1.tick)}`, 'Ada\'s page showing the match');

  // Ada leaves: both end, and every tick both confirmed hashes the same.
  await ada.eval(click('#leave'));
  await ada.waitFor("document.querySelector('#result-text').textContent === 'You left the online match.'", 'Ada\'s result');
  await bo.waitFor("document.querySelector('#result-text').textContent === 'The other player left the match.'", 'Bo\'s result');
  const ta = Number(await ada.eval("document.querySelector('#result').dataset.logTicks"));
  const tb = Number(await bo.eval("document.querySelector('#result').dataset.logTicks"));
  const common = Math.min(ta, tb);
  assert.ok(common >= Number(b1.tick) - 10, `both logs hold the hidden part (${ta}, ${tb})`);
  const hashAt = (t) => `import('/pkg/web_shell.js').then((m) => m.matchHashAt(${t}) ?? null)`;
  for (const t of [Number(b0.tick), common]) {
    const [ha, hb] = [await ada.eval(hashAt(t)), await bo.eval(hashAt(t))];
    assert.ok(ha, `a hash at tick ${t}`);
    assert.equal(ha, hb, `the same state hash at tick ${t}`);
  }
  for (const t of [ada, bo]) assert.deepEqual(t.errors, [], 'no console errors');
  for (const t of [ada, bo]) {
    await t.eval(click('#continue'));
    await t.waitFor("!document.querySelector('#lobby').hidden", 'the lobby');
  }
});

test('a match worker that crashes: the page says so and ends the match; the other player sees it leave; the next match gets a fresh worker', { skip: !enabled }, async () => {
  const cy = await openTab(server.url);
  const di = await openTab(server.url);
  await joinLobby(cy, 'Cy');
  await joinLobby(di, 'Di');
  await startMatch(cy, di, 'Cy', 'Di');
  await di.waitFor("Number(document.querySelector('#match').dataset.tick) >= 60", 'a second of the match');
  assert.equal(await cy.eval("import('/pkg/web_shell.js').then((m) => m.crashMatchWorker())"), true, 'the worker was told to crash');
  const crashed = 'The match stopped: the part of this page that runs it crashed. The other player sees you leave.';
  await cy.waitFor(`document.querySelector('#result-text').textContent === ${JSON.stringify(crashed)}`, 'Cy\'s message');
  // Di: the match link closed, so Di's page holds Cy's slot for a while,
  // then says Cy did not come back.
  const diSaid = await di.waitFor(`(() => { const r = document.querySelector('#result');
    return !r.hidden && document.querySelector('#result-text').textContent; })()`, 'Di\'s result', DEADLINE + 30_000);
  console.log(`crashed worker: Di's page said "${diSaid}"`);
  assert.match(diSaid, /^The other player (left|left and did not come back)\.?/);
  // Cy's page logged the crash (and the worker's own error), nothing else.
  assert.ok(cy.errors.some((e) => /^the match worker crashed/.test(e)), `Cy's log: ${JSON.stringify(cy.errors)}`);
  assert.deepEqual(cy.errors.filter((e) => !/the match worker crashed|told to crash/.test(e)), []);
  assert.deepEqual(di.errors, []);
  // Back in the lobby, another match runs (in a fresh worker).
  for (const t of [cy, di]) {
    await t.eval(click('#continue'));
    await t.waitFor("!document.querySelector('#lobby').hidden", 'the lobby');
  }
  await startMatch(cy, di, 'Cy', 'Di');
  await cy.waitFor("Number(document.querySelector('#match').dataset.tick) >= 60", 'the next match running on Cy\'s page');
  await cy.eval(click('#leave'));
  await di.waitFor("document.querySelector('#result-text').textContent === 'The other player left the match.'", 'Di\'s result');
});

// NtBA between two browser engines: a page in headless Firefox ESR
// (SpiderMonkey) and a page in headless Chromium (V8) meet in the lobby of
// the embedded signalling server and play over real WebRTC, each hosting
// once: Chromium hosts a rollback match, then Firefox hosts a lock-step one,
// a minute of play each (MATCH_TICKS confirmed ticks), with scripted
// keys on both sides. Every confirmed tick both pages showed (data-tick and
// data-hash, recorded as they change) must have the same state hash, and so
// must the last tick both confirmed when the host leaves. Run by
// scripts/ci/55-engines.sh inside a loopback-only network namespace.
//
// Every wait is on a DOM condition with a generous deadline; figures (ticks
// compared, rollbacks, the time a match took) are printed, never asserted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, openPage, joinLobby, entry, waitConnected, unexpectedErrorLogs, describePage, DEADLINE } from './harness.mjs';
import { launchFirefox, ignoredEmulation } from './firefox.mjs';

// A minute of play per match at 60 ticks a second.
const MATCH_TICKS = 3600;
// A loaded machine draws fewer frames (so fewer ticks a second); allow it.
const PLAY_DEADLINE = 360_000;

let server;
let chromium;
let firefox;
const pages = {};
const figures = {};

before(async () => {
  server = await startServer();
  chromium = await launchBrowser();
  firefox = await launchFirefox();
  pages.cara = await openPage(chromium, server.url);
  pages.finn = await openPage(firefox, server.url);
  try {
    await joinLobby(pages.cara, 'Cara');
    await joinLobby(pages.finn, 'Finn');
    // The lobby's direct link between the two pages: WebRTC from one
    // engine to the other.
    await waitConnected(pages.cara, 1);
    await waitConnected(pages.finn, 1);
  } catch (e) {
    await explain(e);
  }
});

after(async () => {
  // Close first: a failed assertion must not leave a browser running.
  await chromium?.close();
  await firefox?.close();
  await server?.stop();
  console.log(`firefox: emulation commands it does not know, ignored: ${ignoredEmulation().join(', ') || 'none'}`);
  console.log(`cross-browser figures: ${JSON.stringify(figures)}`);
  for (const [name, p] of Object.entries(pages)) {
    assert.deepEqual(p.dialogs, [], `${name}: no dialog`);
    assert.deepEqual(p.consoleErrors, [], `${name}: no uncaught page errors`);
    assert.deepEqual(unexpectedErrorLogs(p), [], `${name}: no console errors`);
  }
});

const dataset = (page, sel) => page.$eval(sel, (e) => ({ ...e.dataset }));

/** Dumps both pages and the server's log (for a failed wait), then rethrows. */
async function explain(e) {
  for (const [name, p] of Object.entries(pages)) console.log(await describePage(p, name));
  console.log(`--- signalling server, recent log:\n${server?.recentLog?.() ?? ''}`);
  throw e;
}

/**
 * Presses keys on `page` by its own tick: every 12 ticks a new set of held
 * keys from a small seeded generator, mostly toward the hoop `side`
 * attacks in the first half, with a turn up or down, sometimes away, and
 * Space (a jump shot when held then let go) or X (pass or steal); inputs
 * change often, so predictions are often wrong. Runs until stop().
 */
function pressKeys(page, side, seed) {
  let running = true;
  let rng = seed >>> 0;
  const next = () => {
    // xorshift32
    rng ^= rng << 13; rng >>>= 0;
    rng ^= rng >>> 17;
    rng ^= rng << 5; rng >>>= 0;
    return rng;
  };
  const toward = side === 0 ? 'ArrowRight' : 'ArrowLeft';
  const away = side === 0 ? 'ArrowLeft' : 'ArrowRight';
  const held = new Set();
  const done = (async () => {
    while (running) {
      const tick = Number(await page.locator('#match').getAttribute('data-present-tick').catch(() => null));
      if (!Number.isFinite(tick)) break;
      const r = next();
      const want = new Set();
      want.add([toward, toward, toward, away][r & 3]);
      if (r & 4) want.add((r & 8) ? 'ArrowUp' : 'ArrowDown');
      if ((r & 0x70) < 0x20) want.add('Space');
      else if ((r & 0x70) === 0x20) want.add('KeyX');
      for (const k of [...held]) if (!want.has(k)) { await page.keyboard.up(k).catch(() => {}); held.delete(k); }
      for (const k of want) if (!held.has(k)) { await page.keyboard.down(k).catch(() => {}); held.add(k); }
      await page.waitForFunction((n) => {
        const m = document.querySelector('#match');
        return !m || m.hidden || Number(m.dataset.presentTick) >= n;
      }, tick + 12, { timeout: DEADLINE, polling: 16 }).catch(() => { running = false; });
    }
    for (const k of held) await page.keyboard.up(k).catch(() => {});
  })();
  return { stop: async () => { running = false; await done; } };
}

/** Records every confirmed tick's hash the page shows, from now on. */
const watchConfirmed = () => {
  const m = document.querySelector('#match');
  window.__confirmed = {};
  const note = () => { if (m.dataset.tick) window.__confirmed[m.dataset.tick] = m.dataset.hash; };
  note();
  window.__confirmedObs = new MutationObserver(note);
  window.__confirmedObs.observe(m, { attributes: true, attributeFilter: ['data-tick', 'data-hash'] });
};
const confirmedSeen = () => {
  window.__confirmedObs.disconnect();
  return { ...window.__confirmed };
};

/**
 * `host` challenges `guest` with `mode` picked in its settings; they play
 * MATCH_TICKS confirmed ticks, then the host leaves. Asserts the same hash
 * on every confirmed tick both showed and on the last tick both confirmed.
 */
async function playMatch(label, host, guest, hostName, guestName, mode) {
  const t0 = Date.now();
  if (!(await host.locator('#settings').evaluate((d) => d.open))) await host.locator('#settings summary').click();
  await host.locator('#netcode').selectOption(mode);
  try {
    const challenge = entry(host, guestName).locator('button[data-action="challenge"]');
    await challenge.waitFor({ timeout: DEADLINE });
    await challenge.click();
    const accept = entry(guest, hostName).locator('button[data-action="accept"]');
    await accept.waitFor({ timeout: DEADLINE });
    await accept.click();
    for (const p of [host, guest]) await p.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    await explain(e);
  }
  // Focus off the buttons, so Space is a game key and not a click.
  for (const p of [host, guest]) await p.locator('#canvas').click();
  const [sh, sg] = [await dataset(host, '#match'), await dataset(guest, '#match')];
  assert.equal(sh.side, '0', 'the challenger hosts');
  assert.equal(sg.side, '1');
  assert.equal(sh.mode, mode);
  assert.equal(sg.mode, mode, 'the guest adopts the host choice');
  // The host picks the match's input delay; from there each side raises
  // its own as its round trips grow (and lowers it back, never below the
  // match's), so the two may differ for a while. The hashes below are what
  // must agree.
  for (const [name, d] of [['host', sh.delay], ['guest', sg.delay]]) {
    assert.ok(Number.isInteger(Number(d)) && Number(d) >= 1 && Number(d) <= 12, `the ${name}'s input delay is 1 to 12 ticks: ${d}`);
  }
  console.log(`${label}: input delay at the start: host ${sh.delay}, guest ${sg.delay} ticks`);

  await Promise.all([host.evaluate(watchConfirmed), guest.evaluate(watchConfirmed)]);
  const keys = [pressKeys(host, 0, 0x9e3779b9), pressKeys(guest, 1, 0x85ebca6b)];
  try {
    for (const p of [host, guest]) {
      await p.waitForFunction((n) => Number(document.querySelector('#match').dataset.tick) >= n,
        MATCH_TICKS, { timeout: PLAY_DEADLINE, polling: 250 });
    }
  } catch (e) {
    await Promise.all(keys.map((k) => k.stop()));
    await explain(e);
  }
  await Promise.all(keys.map((k) => k.stop()));
  const [seenH, seenG] = await Promise.all([host.evaluate(confirmedSeen), guest.evaluate(confirmedSeen)]);
  const both = Object.keys(seenH).filter((t) => t in seenG).map(Number).sort((a, b) => a - b);
  // Each page shows a confirmed tick per frame drawn: hundreds in a
  // minute even on a slow machine, and many of them on both pages.
  assert.ok(both.length >= 100, `${label}: the pages showed ${both.length} confirmed ticks in common`);
  for (const t of both) assert.equal(seenH[t], seenG[t], `${label}: data-hash at confirmed tick ${t}`);
  const [fh, fg] = [await dataset(host, '#match'), await dataset(guest, '#match')];

  // The host leaves; both say so; the last tick both confirmed has the
  // same state hash on both, and so has each tick both logs hold at the end.
  await host.locator('#leave').click();
  await host.locator('#result-text', { hasText: 'You left the online match.' }).waitFor({ timeout: DEADLINE });
  await guest.locator('#result-text', { hasText: 'The other player left the match.' }).waitFor({ timeout: DEADLINE });
  const th = Number(await host.locator('#result').getAttribute('data-log-ticks'));
  const tg = Number(await guest.locator('#result').getAttribute('data-log-ticks'));
  const last = Math.min(th, tg);
  assert.ok(last >= MATCH_TICKS, `${label}: both confirmed at least ${MATCH_TICKS} ticks (${th}, ${tg})`);
  const hashAt = async (t) => (await import('/pkg/web_shell.js')).matchHashAt(t) ?? null;
  const [hh, hg] = [await host.evaluate(hashAt, last), await guest.evaluate(hashAt, last)];
  assert.ok(hh, `${label}: a hash at the last common tick ${last}`);
  assert.equal(hh, hg, `${label}: the same final hash at tick ${last}`);
  if (th === tg) {
    assert.equal(await host.locator('#result').getAttribute('data-log-hash'),
      await guest.locator('#result').getAttribute('data-log-hash'), `${label}: the same log hash`);
  }
  figures[label] = {
    mode,
    input_delay_ticks: Number(fh.delay),
    confirmed_ticks_compared_live: both.length,
    last_common_tick: last,
    final_hash: hh,
    score: fh.confirmedSummary,
    stats_host: fh.stats,
    stats_guest: fg.stats,
    seconds: Math.round((Date.now() - t0) / 1000),
  };
  console.log(`${label}: ${both.length} confirmed ticks compared live, the same hash at tick ${last} (${hh}), ${fh.confirmedSummary}; host ${fh.stats}; guest ${fg.stats}`);

  for (const p of [host, guest]) {
    await p.locator('#continue').click();
    await p.locator('#lobby').waitFor({ state: 'visible', timeout: DEADLINE });
    await waitConnected(p, 1);
  }
}

test('Chromium hosts a rollback match against Firefox: the same hash on every confirmed tick both show and at the end', async () => {
  await playMatch('chromium hosts, rollback', pages.cara, pages.finn, 'Cara', 'Finn', 'rollback');
});

test('Firefox hosts a lock-step match against Chromium: the same hash on every confirmed tick both show and at the end', async () => {
  await playMatch('firefox hosts, lock-step', pages.finn, pages.cara, 'Finn', 'Cara', 'lockstep');
});

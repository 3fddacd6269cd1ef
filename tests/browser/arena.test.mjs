// The arena (games/arena-web) in real headless Chromium: two pages meet in
// the lobby, one challenges, the other accepts, and the match link the
// shell opens carries a host-authoritative match. The challenger's page
// hosts: its simulation runs in a dedicated Web Worker. The other page is
// the guest: it interpolates the host's snapshots and predicts its own
// ship. Both players steer and fire with the keyboard for a while; each
// page's drawn ships are compared with the host's own state at the same
// host tick. Runs only with ARENA_WEB=1 and WEB_DIR pointing at a page
// whose first game is the arena: the arena's own page, or the arcade page
// that stage 62 builds (scripts/ci/62-authority-web.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, joinLobby, entry, waitConnected, describePage, DEADLINE } from './harness.mjs';
import { steerShip } from './arena-pilot.mjs';

const enabled = process.env.ARENA_WEB === '1';
const PLAY_MS = Number(process.env.ARENA_PLAY_MS || 30_000);
// Interpolated ships against the host's state at the same host tick
// (metres): positions travel in decimetres, and a straight blend between
// snapshots two ticks apart cuts a turning ship's curve by a little. The
// same bound as the native test view_follows_the_host.
const INTERPOLATION_BOUND = 0.5;
// The guest's own ship, predicted, against the host's at the tick the
// prediction stands for: the arena's snap distance (games/arena), except
// within a second after an event the guest could not foresee moved it (a
// hit's knockback, a bump, a respawn).
const PREDICTION_BOUND = 3.0;
const UNFORESEEN_TICKS = 30;

const env = serverAndBrowser(enabled);
const { pages } = env;

const probe = (page) => page.evaluate(async () => JSON.parse((await import('/pkg/web_shell.js')).arenaProbe()));
// The page's address, with the options in PAGE_QUERY: stage 62 runs this
// test on the arcade page with its match kept on the page
// (`?match-worker=off`), where the probe above reads it; by default the
// arcade runs its matches in a worker, whose probe the page cannot read.
const pageUrl = (server) => new URL(process.env.PAGE_QUERY ?? '', server.url).href;

/** Where the host had ship `id` at fractional tick `t`, if alive then. */
function hostAt(host, id, t) {
  const at = (tick) => host.history.find((h) => h.tick === tick)?.ships.find((s) => s.id === id && s.hp > 0);
  const lo = Math.floor(t);
  const a = at(lo);
  if (!a) return null;
  const b = at(lo + 1) ?? a;
  const f = t - lo;
  return [a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f];
}

/** Plays `page`'s ship with the keyboard from what the page draws. */
const driveKeys = (page, seed) => steerShip(page, {
  seed,
  view: probe,
  pace: (p) => p.waitForTimeout(60).then(() => true, () => false),
});

test('the arena between two Chromium pages: the host in a worker, every ship drawn where the host had it', { skip: !enabled }, async () => {
  const { server, browser } = env;
  const ada = await openPage(browser, pageUrl(server));
  const bo = await openPage(browser, pageUrl(server));
  pages.push(ada, bo);
  await joinLobby(ada, 'Ada');
  await joinLobby(bo, 'Bo');
  await waitConnected(ada, 1);
  await waitConnected(bo, 1);
  assert.ok(['Arena', 'Arcade'].includes(await ada.locator('#game-name').textContent()));

  const challenge = entry(ada, 'Bo').locator('button[data-action="challenge"]');
  await challenge.click({ timeout: DEADLINE });
  const accept = entry(bo, 'Ada').locator('button[data-action="accept"]');
  await accept.click({ timeout: DEADLINE });
  try {
    for (const p of [ada, bo]) await p.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    console.log(await describePage(ada, 'Ada'));
    console.log(await describePage(bo, 'Bo'));
    throw e;
  }
  if ((await ada.locator('#game-name').textContent()) === 'Arcade') {
    // The arcade page opens on NtBA: both pick the arena (its second game).
    for (const p of [ada, bo]) {
      await p.keyboard.down('Digit2');
      await p.waitForTimeout(60);
      await p.keyboard.up('Digit2');
    }
    const until = Date.now() + DEADLINE;
    while (ada.workers().length !== 1) {
      assert.ok(Date.now() < until, 'the arena starts on the host page');
      await ada.waitForTimeout(50);
    }
  }
  await ada.locator('#match-headline', { hasText: 'You play Amber (host)' }).waitFor({ timeout: DEADLINE }).catch(() => {});
  // The host's simulation runs in the worker the host page started; the
  // guest's page has none.
  assert.equal(ada.workers().length, 1, 'the host page runs one worker');
  assert.match(ada.workers()[0].url(), /\/worker\.js$/);
  assert.equal(bo.workers().length, 0, 'the guest page runs no worker');
  for (const p of [ada, bo]) await p.locator('#canvas').click();

  const drivers = [driveKeys(ada, 11), driveKeys(bo, 23)];
  const start = Date.now();
  let compared = 0;
  let ownCompared = 0;
  let worst = 0;
  let worstOwn = 0;
  const predicted = [];
  // Snapshot ticks at which an event moved the guest's ship.
  const movedAt = [];
  let first = null;
  // Play for PLAY_MS, and on a machine too busy to sample often enough in
  // that time, on until 40 of each comparison were made (at most three
  // times as long).
  const enough = () => compared >= 40 && ownCompared >= 40;
  const playing = () => {
    const elapsed = Date.now() - start;
    return elapsed < PLAY_MS || (!enough() && elapsed < 3 * PLAY_MS);
  };
  while (playing()) {
    const [host, guest] = await Promise.all([probe(ada), probe(bo)]);
    assert.equal(host.role, 'host');
    assert.equal(guest.role, 'guest');
    first ??= host.tick;
    if (guest.tick !== null && guest.seat !== null) {
      for (const s of guest.ships) {
        if (s.id === guest.seat || s.hp === 0) continue;
        const h = hostAt(host, s.id, guest.tick);
        if (!h) continue;
        const d = Math.hypot(s.x - h[0], s.y - h[1]);
        worst = Math.max(worst, d);
        assert.ok(d <= INTERPOLATION_BOUND, `ship ${s.id} drawn ${d.toFixed(3)} m from the host's at tick ${guest.tick}`);
        compared += 1;
      }
      if (guest.own) predicted.push(guest.own);
      if (guest.moved_at !== null && movedAt.at(-1) !== guest.moved_at) movedAt.push(guest.moved_at);
    }
    // The host page draws its own state: the newest tick of its history.
    const newest = host.history.at(-1);
    assert.equal(host.tick, newest.tick, 'the host page draws the newest state of its worker');
    for (let i = predicted.length - 1; i >= 0; i -= 1) {
      const own = predicted[i];
      if (own.tick > newest.tick) continue;
      predicted.splice(i, 1);
      if (movedAt.some((e) => Math.abs(own.tick - e) <= UNFORESEEN_TICKS)) continue;
      const h = hostAt(host, guest.seat, own.tick);
      if (!h) continue;
      const d = Math.hypot(own.x - h[0], own.y - h[1]);
      worstOwn = Math.max(worstOwn, d);
      assert.ok(d <= PREDICTION_BOUND, `own ship predicted ${d.toFixed(3)} m from the host's at tick ${own.tick}`);
      ownCompared += 1;
    }
    await ada.waitForTimeout(50);
  }
  const played = Date.now() - start;
  for (const d of drivers) await d.stop();
  const [host, guest] = await Promise.all([probe(ada), probe(bo)]);
  console.log(`arena: ${host.tick - first} host ticks in ${played} ms; ${compared} interpolated and ${ownCompared} predicted positions compared; `
    + `worst ${worst.toFixed(3)} m and ${worstOwn.toFixed(3)} m; guest delay ${guest.delay_ms} ms, ${guest.events} events, `
    + `${guest.corrections} corrections (${guest.snapped} snapped, ${guest.unexplained_snaps} without an event)`);
  assert.ok(compared >= 40, `enough interpolated comparisons (${compared})`);
  assert.ok(ownCompared >= 40, `enough predicted comparisons (${ownCompared})`);
  assert.ok(host.tick - first >= played / 33 * 0.8, 'the host ticked at about 30 Hz');
  assert.ok(guest.delay_ms >= 40 && guest.delay_ms <= 250, 'the interpolation delay within its bounds');
  assert.equal(guest.unexplained_snaps, 0, 'no snapped correction without an event to explain it');
  assert.ok(guest.events > 0, 'hits, bumps or respawns reached the guest as events');
  // Both players' keys moved their ships (the host's through its worker).
  for (const id of [0, guest.seat]) {
    const xs = host.history.map((h) => h.ships.find((s) => s.id === id)).filter(Boolean);
    const travelled = xs.slice(1).reduce((d, s, i) => d + Math.hypot(s.x - xs[i].x, s.y - xs[i].y), 0);
    assert.ok(travelled > 5, `ship ${id} moved in the last ${xs.length} ticks (${travelled.toFixed(1)} m)`);
  }

  // The guest leaves: both pages say why, and the host's worker is gone.
  await bo.locator('#leave').click();
  await bo.locator('#result-text', { hasText: 'You left the online match.' }).waitFor({ timeout: DEADLINE });
  await ada.locator('#result-text', { hasText: 'The other player left the match.' }).waitFor({ timeout: DEADLINE });
  const until = Date.now() + DEADLINE;
  while (ada.workers().length > 0 && Date.now() < until) await ada.waitForTimeout(50);
  assert.equal(ada.workers().length, 0, 'the host page stopped its worker');
});

// Parties of NtBA in real headless Chromium: four isolated browser
// contexts against the embedded signalling server serving the page, real
// WebRTC between every pair of players. Runs only with NTBA_PARTY=1 and
// WEB_DIR pointing at a page whose first game is NtBA: the arcade page,
// the one players get (scripts/ci/61-party.sh), or NtBA's own.
//
// Each scenario checks that every page showed the same state hash at each
// confirmed tick they showed in common (recorded live from #match's
// data-tick and data-hash). The party of three plays well into a full
// match (past confirmed tick MIN_TICK), then the challenger leaves; the
// input log each page kept must then give the same hash at MIN_TICK.
// Early in that match Cy's browser closes its party connections, and
// later Bo's page is reloaded: each comes back into its place through a
// comeback room the challenger's page makes (the others counting it
// down, named). Then the challenger's page itself is reloaded, and comes
// back as the match's host through a room Bo's page makes; then it is
// reloaded again and Cy's page 1 s later, while the challenger's is still
// on its way back: both come back (Cy through Bo's room, taken back by the
// returned host), before the three play on in sync. The
// party of four picks the short match length in the party panel (two
// halves of 30 s, carried to every page in the session's seed) and plays
// it to the final buzzer: every page shows the same result, and their
// logs agree at the last tick they all confirmed. A fifth page, Eve,
// stays in the lobby and presses Watch next to one of the 2v2's players:
// it joins the match's member room as a spectator, every player's page
// counts "1 watching", and Eve sees the same final score, and her log the
// same hash, as the players. Then the four press Play again: the next
// match starts over the same connections (each page counts the
// RTCPeerConnection objects it made, through an init script, and makes no
// new one); Ada leaves it, and when she goes back to the lobby the others
// follow. Last, a party of three where Cy's page finds no direct path
// (its media permissions lost once the lobby mesh formed): Cy's two pairs
// link through the server's relay for each pair; mid-match its relay
// sockets close, and it comes back into its place over the relays of a
// comeback room, the three then playing on in sync with logs that agree.
// Before that, a party of three where the challenger's page is told its
// two party connections lost their ICE path mid-match (the one step
// simulated, as in the match tests' scenario 19): it restarts ICE on
// each, both links come back on the same connections (every page counts
// its restarts in data-ice-restarts, no page makes a new connection or
// comes back through a comeback room), and the three play on in sync.
// Before the parties, a match of two: Ada challenges Bo, Cy
// presses Watch next to Bo (the guest, whose page asks Ada's for the way
// in), both players' pages count "1 watching", the three pages agree on
// the state hash at every confirmed tick they showed in common, and when
// Ada leaves, Cy's last confirmed state (hash and score) is the one both
// players' logs give at that tick. Every wait is on a DOM condition with
// a generous deadline.
//
// The README's pictures (docs/screens) come from these pages, each view at
// 1280×800, 1920×1080 and a phone's 390×844, with what could go wrong at
// that size checked first: the title screen (the Online button inside the
// window, nothing wider than it); Bo's lobby with Ada's party invitation
// (it and its Accept button inside the window); the 2v2 in play and Eve's
// view of it, a few seconds in; and the online result after the final
// buzzer (the final score and Play again inside the window). On the three
// court views the canvas keeps 16:9, fills its column and nothing is cut
// off or scrolls (assertCourtFillsColumn). Each page is resized in turn
// and given back its size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowser, openPage, fillLobby, inviteToParty, answerParty, partyPrompt, assertEndedTogether,
  describeAll as describePages, describePage, entry, matchDeadline, shootAtEachSize, assertInWindow, assertCourtFillsColumn,
  NTBA_RESULT as RESULT, DEADLINE,
} from './harness.mjs';

const enabled = process.env.NTBA_PARTY === '1';
const PLAY_DEADLINE = 120_000;
const MIN_TICK = 600;
const COMMON_TICKS = 20;
// The 2v2 match has run a few seconds (60 ticks a second) before its
// picture.
const SHOT_TICK = 300;

const env = serverAndBrowser(enabled);
const NAMES = ['Ada', 'Bo', 'Cy', 'Di', 'Eve'];
const pages = {};

/** Counts the RTCPeerConnection objects the page makes (window.__peers)
 * and keeps them, in order, in window.__pcList. */
const countPeers = () => {
  const Real = window.RTCPeerConnection;
  window.__peers = 0;
  window.__pcList = [];
  window.RTCPeerConnection = new Proxy(Real, {
    construct(target, args, newTarget) {
      window.__peers += 1;
      const pc = Reflect.construct(target, args, newTarget);
      window.__pcList.push(pc);
      return pc;
    },
  });
};

/** Every page in the lobby, each seeing the others connected. */
async function lobby() {
  if (pages.Ada) return;
  Object.assign(pages, await fillLobby(env, NAMES, { initScript: countPeers }));
}

const describeAll = () => describePages(pages, env.server);

/**
 * Ada invites `invited` (in this order) through the party panel; each
 * name in `accept` accepts, every other declines; with `short`, Ada picks
 * the short match length first. Returns once the party's pages run the
 * match.
 */
async function party(invited, accept, { short = false } = {}) {
  await inviteToParty(pages, 'Ada', invited, { short });
  return answerParty(pages, 'Ada', invited, accept, env.server);
}

/**
 * Records every confirmed tick each of `ps` shows until all have passed
 * MIN_TICK and showed COMMON_TICKS ticks in common; asserts the hashes
 * agree there. Ada and Bo hold keys meanwhile, so the inputs differ.
 */
async function playInSync(ps, { toEnd = false } = {}) {
  const watch = () => {
    const m = document.querySelector('#match');
    window.__seen = {};
    window.__seenObs = new MutationObserver(() => { window.__seen[m.dataset.tick] = m.dataset.hash; });
    window.__seenObs.observe(m, { attributes: true, attributeFilter: ['data-tick', 'data-hash'] });
  };
  await Promise.all(ps.map((p) => p.evaluate(watch)));
  // Focus off the buttons, then keys held on two of the pages.
  await ps[0].locator('#canvas').click();
  await ps[0].keyboard.down('ArrowRight');
  await ps[1].locator('#canvas').click();
  await ps[1].keyboard.down('ArrowLeft');
  const seen = (p) => p.evaluate(() => ({ ...window.__seen }));
  let all = [];
  let common = [];
  // A short match (2 × 30 s of game clock, at most three 15 s overtimes
  // and the pauses after baskets and turnovers) has as long as it moves.
  const until = Date.now() + PLAY_DEADLINE;
  const deadline = matchDeadline(ps);
  const over = (p) => p.locator('#result-text', { hasText: RESULT }).count();
  while (toEnd ? !(await deadline.expired()) : Date.now() < until) {
    all = await Promise.all(ps.map(seen));
    common = Object.keys(all[0]).filter((t) => Number(t) >= MIN_TICK && all.every((s) => t in s));
    if (toEnd) {
      if ((await Promise.all(ps.map(over))).every((n) => n === 1)) break;
    } else if (common.length >= COMMON_TICKS) break;
    // Polling the pages' records while they play.
    await ps[0].waitForTimeout(500);
  }
  await ps[0].keyboard.up('ArrowRight');
  await ps[1].keyboard.up('ArrowLeft');
  await Promise.all(ps.map((p) => p.evaluate(() => window.__seenObs.disconnect())));
  const ended = toEnd && (await Promise.all(ps.map(over))).every((n) => n === 1);
  if (common.length < COMMON_TICKS || (toEnd && !ended)) await describeAll();
  if (toEnd) assert.ok(ended, 'every page showed the result of the finished match');
  assert.ok(common.length >= COMMON_TICKS, `the pages showed ${common.length} confirmed ticks in common from ${MIN_TICK}`);
  for (const t of common) {
    for (const s of all) assert.equal(s[t], all[0][t], `data-hash at confirmed tick ${t}`);
  }
}

/** Ada leaves; every page of the party shows a result, and their input
 * logs agree at MIN_TICK; then all go back to the lobby. */
async function leaveAndCompare(ps) {
  await ps[0].locator('#leave').click();
  for (const p of ps) await p.locator('#result:not([hidden])').waitFor({ timeout: DEADLINE });
  const hashAt = (p) => p.evaluate(async (t) => (await import('/pkg/web_shell.js')).matchHashAt(t) ?? null, MIN_TICK);
  const hashes = await Promise.all(ps.map(hashAt));
  assert.ok(/^[0-9a-f]{16}$/.test(hashes[0] ?? ''), `a hash at tick ${MIN_TICK}: ${hashes[0]}`);
  for (const h of hashes) assert.equal(h, hashes[0], `matchHashAt(${MIN_TICK})`);
  await backToLobby(ps);
}

/** The first of `ps` goes back to the lobby; the others of its party
 * follow it there (no rematch without it). */
async function backToLobby(ps) {
  await ps[0].locator('#continue').click();
  for (const p of ps) await p.locator('#lobby:not([hidden])').waitFor({ timeout: DEADLINE });
}

test('the title screen at 1280x800, 1920x1080 and 390x844: the Online button inside the window, nothing wider than it', { skip: !enabled }, async () => {
  const title = await openPage(env.browser, env.server.url);
  try {
    await title.locator('#btn-online').waitFor({ state: 'visible', timeout: DEADLINE });
    await shootAtEachSize(title, 'title', async (width, height) => {
      assert.notEqual(await title.locator('#game-name').textContent(), 'Loading…');
      await assertInWindow(title, '#btn-online', 'the Online button', width, height);
      const scrollWidth = await title.evaluate(() => document.scrollingElement.scrollWidth);
      assert.ok(scrollWidth <= width, `nothing wider than the ${width} px window: ${scrollWidth}`);
    });
  } finally {
    await title.context().close();
  }
});

test('a challenge\'s match of two is watched from the lobby, in sync, to the same end', { skip: !enabled }, async () => {
  await lobby();
  const { Ada: ada, Bo: bo, Cy: cy } = pages;
  await entry(ada, 'Bo').locator('button[data-action="challenge"]').click({ timeout: DEADLINE });
  await entry(bo, 'Ada').locator('button[data-action="accept"]').click({ timeout: DEADLINE });
  for (const p of [ada, bo]) await p.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
  // Cy asks the guest: its page asks the host's, which opens a room for
  // spectators and sends its code back through Bo's.
  await entry(cy, 'Bo').locator('button[data-action="watch"]').click({ timeout: DEADLINE });
  try {
    await cy.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
    for (const p of [ada, bo]) {
      await p.locator('#match[data-watching="1"]').waitFor({ timeout: DEADLINE });
      await p.locator('#match-quality', { hasText: '1 watching' }).waitFor({ timeout: DEADLINE });
    }
  } catch (e) {
    await describeAll();
    throw e;
  }
  assert.equal(await cy.locator('#match').getAttribute('data-side'), null, 'a spectator plays no side');
  // Each page's confirmed score at every tick it shows, from now on.
  const scores = () => {
    const m = document.querySelector('#match');
    window.__scores = {};
    window.__scoresObs = new MutationObserver(() => { window.__scores[m.dataset.tick] = m.dataset.confirmedSummary; });
    window.__scoresObs.observe(m, { attributes: true, attributeFilter: ['data-tick'] });
  };
  await Promise.all([ada, bo, cy].map((p) => p.evaluate(scores)));
  await playInSync([ada, bo, cy]);
  await ada.locator('#leave').click();
  for (const p of [ada, bo, cy]) await p.locator('#result:not([hidden])').waitFor({ timeout: DEADLINE });
  // The spectator's last confirmed state is the players' at that tick. A
  // player's input log may end a few ticks short of it (the inputs in
  // flight when Ada left): then the logs are compared at the last tick all
  // three hold.
  const last = Number(await cy.locator('#match').getAttribute('data-tick'));
  const lastHash = await cy.locator('#match').getAttribute('data-hash');
  assert.ok(last > MIN_TICK, `the spectator confirmed tick ${last}`);
  const logEnd = (p) => p.evaluate(async (t) => {
    const { matchHashAt } = await import('/pkg/web_shell.js');
    if (matchHashAt(t) != null) return t;
    let [lo, hi] = [0, t];
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (matchHashAt(mid) != null) lo = mid; else hi = mid;
    }
    return lo;
  }, last);
  const ends = await Promise.all([ada, bo, cy].map(logEnd));
  const at = Math.min(...ends);
  console.log(`watched match of two: the spectator's last tick ${last}, the logs end at ${ends.join(', ')}`);
  assert.equal(ends[2], last, "the spectator's log reaches the tick it showed last");
  assert.ok(last - at < 120, `every log reaches within two seconds of the spectator's last tick (${ends.join(', ')})`);
  const hashAt = (p) => p.evaluate(async (t) => (await import('/pkg/web_shell.js')).matchHashAt(t) ?? null, at);
  const hashes = await Promise.all([ada, bo, cy].map(hashAt));
  assert.match(hashes[2] ?? '', /^[0-9a-f]{16}$/, `a hash at tick ${at}`);
  assert.deepEqual(hashes, [hashes[2], hashes[2], hashes[2]], `matchHashAt(${at})`);
  if (at === last) assert.equal(hashes[2], lastHash, 'the spectator showed the hash its log gives');
  const recorded = await Promise.all([ada, bo, cy].map((p) => p.evaluate(() => {
    window.__scoresObs.disconnect();
    return window.__scores;
  })));
  const spectator = recorded[2];
  const common = Object.keys(spectator).filter((t) => t in recorded[0] && t in recorded[1]);
  assert.ok(common.length > 0, 'a confirmed tick every page showed');
  for (const t of common) {
    assert.equal(recorded[0][t], spectator[t], `Ada's and Cy's score at tick ${t}`);
    assert.equal(recorded[1][t], spectator[t], `Bo's and Cy's score at tick ${t}`);
  }
  for (const p of [ada, bo, cy]) {
    await p.locator('#continue').click();
    await p.locator('#lobby:not([hidden])').waitFor({ timeout: DEADLINE });
  }
});

test('a party of three where one invited player declines plays with a CPU, in sync; a player whose connections close comes back, one whose page reloads, and the challenger whose page reloads', { skip: !enabled }, async () => {
  await lobby();
  const cy = pages.Cy;
  // The peer connections Cy's page makes from here on are the party's.
  const lobbyLinks = await cy.evaluate(() => window.__pcList.length);
  const ps = await party(['Bo', 'Cy', 'Di'], ['Bo', 'Cy']);
  // Who declined stays in the lobby; the others are seen in a match.
  assert.equal(await pages.Di.locator('#match[data-state="running"]').count(), 0);
  const sides = await Promise.all(ps.map((p) => p.locator('#match').getAttribute('data-side')));
  assert.deepEqual(sides, ['0', '1', '2'], 'place p plays session slot p');
  // Cy's browser closes its party connections mid-match (its lobby links
  // stay): its page asks Ada's for a way back, all three meet in a fresh
  // room, Cy's page links to Ada's and Bo's again, and its fresh session
  // takes Cy's place back. Meanwhile the others name Cy in the countdown.
  await cy.waitForFunction(() => Number(document.querySelector('#match').dataset.tick) >= 120, null,
    { timeout: DEADLINE, polling: 100 });
  // The countdown may show for a moment only (Cy is back within a second
  // on loopback): each of the others records every line it shows.
  const recordLines = () => {
    const el = document.querySelector('#match-waiting');
    window.__waitingLines = [];
    const note = () => { if (!el.hidden && el.textContent) window.__waitingLines.push(el.textContent); };
    window.__waitingObs = new MutationObserver(note);
    window.__waitingObs.observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
  };
  await Promise.all(ps.slice(0, 2).map((p) => p.evaluate(recordLines)));
  const closedAt = Date.now();
  await cy.evaluate((n) => window.__pcList.slice(n).forEach((pc) => pc.close()), lobbyLinks);
  try {
    await cy.locator('#match[data-rejoined]').waitFor({ timeout: DEADLINE });
    for (const p of ps.slice(0, 2)) {
      const lines = await p.evaluate(() => window.__waitingLines);
      assert.ok(lines.some((l) => /^Cy is reconnecting \(\d+ s\)$/.test(l)), `the countdown names Cy: ${JSON.stringify(lines)}`);
    }
  } catch (e) {
    await describeAll();
    throw e;
  }
  const rejoined = Number(await cy.locator('#match').getAttribute('data-rejoined'));
  console.log(`party rejoin: ${JSON.stringify({ closed_to_back_in_match_ms: Date.now() - closedAt, caught_up_to_tick: rejoined })}`);
  assert.ok(rejoined >= 120, `caught up to where the match was (${rejoined})`);
  for (const p of ps) {
    await p.locator('#match-waiting', { hasText: /reconnecting/ }).waitFor({ state: 'hidden', timeout: DEADLINE });
  }
  // Bo's page is reloaded mid-match: from the record in its tab's session
  // storage (the party's host, its place, how many play) it goes back into
  // the lobby under its name, asks Ada's page, and is back in its place
  // the same way.
  const bo = ps[1];
  await bo.waitForFunction(() => sessionStorage.getItem('rejoin') !== null, null, { timeout: DEADLINE, polling: 100 });
  const reloadedAt = Date.now();
  await bo.reload();
  try {
    await bo.locator('#match[data-rejoined]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    await describeAll();
    throw e;
  }
  const boBack = Number(await bo.locator('#match').getAttribute('data-rejoined'));
  console.log(`party reload: ${JSON.stringify({ reload_to_back_in_match_ms: Date.now() - reloadedAt, caught_up_to_tick: boBack })}`);
  assert.equal(await bo.locator('#match').getAttribute('data-side'), '1', 'back in its own place');
  for (const p of ps) {
    await p.locator('#match-waiting', { hasText: /reconnecting/ }).waitFor({ state: 'hidden', timeout: DEADLINE });
  }
  // Ada's page, the challenger's and the match's host, is reloaded: its
  // record (its token and entropy, its guests' lobby ids) brings it back
  // into the lobby, it asks Bo's and Cy's pages, Bo's (the lowest place
  // still connected) opens the room, Bo and Cy keep their own connection,
  // and Ada's fresh session is the host again.
  const ada = ps[0];
  await ada.waitForFunction(() => sessionStorage.getItem('rejoin') !== null, null, { timeout: DEADLINE, polling: 100 });
  const hostReloadedAt = Date.now();
  await ada.reload();
  try {
    await ada.locator('#match[data-rejoined]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    for (const [name, p] of [['Ada', ada], ['Bo', bo], ['Cy', cy]]) console.log(await describePage(p, name, 200));
    throw e;
  }
  const adaBack = Number(await ada.locator('#match').getAttribute('data-rejoined'));
  console.log(`party host reload: ${JSON.stringify({ reload_to_back_in_match_ms: Date.now() - hostReloadedAt, caught_up_to_tick: adaBack })}`);
  assert.equal(await ada.locator('#match').getAttribute('data-side'), '0', 'the host again');
  for (const p of ps) {
    await p.locator('#match-waiting', { hasText: /reconnecting/ }).waitFor({ state: 'hidden', timeout: DEADLINE });
  }
  // Ada's page is reloaded again, and Cy's 1 s later, while Ada's is
  // still on its way back: Cy's record names Ada's old lobby id, gone, and
  // Bo's; Cy asks Bo, who keeps the room for both, and once Ada's page is
  // the host again it takes Cy back.
  await ada.waitForFunction(() => sessionStorage.getItem('rejoin') !== null, null, { timeout: DEADLINE, polling: 100 });
  await cy.waitForFunction(() => sessionStorage.getItem('rejoin') !== null, null, { timeout: DEADLINE, polling: 100 });
  const bothReloadedAt = Date.now();
  const adaAgain = ada.reload();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await cy.reload();
  await adaAgain;
  try {
    await ada.locator('#match[data-rejoined]').waitFor({ timeout: DEADLINE });
    await cy.locator('#match[data-rejoined]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    for (const [name, p] of [['Ada', ada], ['Bo', bo], ['Cy', cy]]) console.log(await describePage(p, name, 200));
    throw e;
  }
  console.log(`party host and guest reloads 1 s apart: ${JSON.stringify({ first_reload_to_both_back_ms: Date.now() - bothReloadedAt })}`);
  assert.equal(await ada.locator('#match').getAttribute('data-side'), '0', 'the host again');
  assert.equal(await cy.locator('#match').getAttribute('data-side'), '2', 'Cy in its own place');
  for (const p of ps) {
    await p.locator('#match-waiting', { hasText: /reconnecting/ }).waitFor({ state: 'hidden', timeout: DEADLINE });
  }
  await playInSync(ps);
  await leaveAndCompare(ps);
});

test('a party of four plays a short 2v2 to the final buzzer, in sync, watched; the README\'s pictures of it at three sizes', { skip: !enabled }, async () => {
  await lobby();
  const invited = ['Bo', 'Cy', 'Di'];
  await inviteToParty(pages, 'Ada', invited, { short: true });
  // Bo's lobby with the invitation showing, Accept inside the window.
  const prompt = partyPrompt(pages.Bo, 'Ada');
  await shootAtEachSize(pages.Bo, 'invitation', async (width, height) => {
    await prompt.waitFor({ timeout: DEADLINE });
    await assertInWindow(pages.Bo, '#party-prompt .prompt', 'the invitation', width, height);
    await assertInWindow(pages.Bo, '#party-prompt .prompt button[data-action="party-accept"]', 'Accept', width, height);
  });
  const ps = await answerParty(pages, 'Ada', invited, invited, env.server);
  const sides = await Promise.all(ps.map((p) => p.locator('#match').getAttribute('data-side')));
  assert.deepEqual(sides, ['0', '1', '2', '3']);
  // Eve watches from the lobby: Watch next to Bo, who plays.
  const eve = pages.Eve;
  const watch = entry(eve, 'Bo').locator('button[data-action="watch"]');
  await watch.click({ timeout: DEADLINE });
  try {
    await eve.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    await describeAll();
    throw e;
  }
  assert.equal(await eve.locator('#match').getAttribute('data-side'), null, 'a spectator plays no side');
  for (const p of ps) {
    await p.locator('#match[data-watching="1"]').waitFor({ timeout: DEADLINE });
    await p.locator('#match-quality', { hasText: '1 watching' }).waitFor({ timeout: DEADLINE });
  }
  // The match in play and the spectator's view of it: two players run
  // (focus off the buttons first), so the court is not still.
  const [ada, bo] = ps;
  await ada.locator('#canvas').click();
  await ada.keyboard.down('ArrowRight');
  await bo.locator('#canvas').click();
  await bo.keyboard.down('ArrowLeft');
  await ada.waitForFunction((t) => Number(document.querySelector('#match').dataset.tick) >= t, SHOT_TICK,
    { timeout: DEADLINE, polling: 100 });
  await shootAtEachSize(ada, 'match', () => assertCourtFillsColumn(ada), { court: true });
  await shootAtEachSize(eve, 'spectator', () => assertCourtFillsColumn(eve), { court: true });
  await ada.keyboard.up('ArrowRight');
  await bo.keyboard.up('ArrowLeft');
  await playInSync([...ps, eve], { toEnd: true });
  const score = await assertEndedTogether([...ps, eve]);
  // The online result: the final score and Play again inside the window.
  await shootAtEachSize(ada, 'result', async (width, height) => {
    await assertCourtFillsColumn(ada);
    assert.equal(await ada.locator('#result-text').textContent(), score);
    await assertInWindow(ada, '#result-text', 'the final score', width, height);
    await assertInWindow(ada, '#play-again', 'Play again', width, height);
  }, { court: true });
  await eve.locator('#continue').click();
  await eve.locator('#lobby:not([hidden])').waitFor({ timeout: DEADLINE });

  // Play again, over the same connections.
  const peers = (p) => p.evaluate(() => window.__peers);
  const before = await Promise.all(ps.map(peers));
  assert.ok(before.every((n) => n >= 3), `each player made its links: ${before}`);
  for (const p of ps) await p.locator('#play-again').click({ timeout: DEADLINE });
  for (const p of ps) {
    await p.waitForFunction(() => {
      const m = document.querySelector('#match');
      return !m.hidden && m.dataset.state === 'running' && Number(m.dataset.tick) > 60;
    }, null, { timeout: DEADLINE, polling: 100 });
  }
  assert.deepEqual(await Promise.all(ps.map(peers)), before, 'no new RTCPeerConnection for the rematch');
  await playInSync(ps);
  // Ada leaves the rematch; when she goes back to the lobby, all do.
  await ps[0].locator('#leave').click();
  for (const p of ps) await p.locator('#result:not([hidden])').waitFor({ timeout: DEADLINE });
  await backToLobby(ps);
  assert.deepEqual(await Promise.all(ps.map(peers)), before);
});

test('a party of three where the challenger\'s page loses the ICE path of its links mid-match: an ICE restart on each brings it back on the same connections, no comeback, in sync', { skip: !enabled }, async () => {
  await lobby();
  const ada = pages.Ada;
  // The peer connections each page makes from here on are the party's.
  const before = {};
  for (const n of ['Ada', 'Bo', 'Cy']) before[n] = await pages[n].evaluate(() => window.__pcList.length);
  const ps = await party(['Bo', 'Cy', 'Di'], ['Bo', 'Cy']);
  const peers = () => Promise.all(ps.map((p) => p.evaluate(() => window.__peers)));
  await ada.waitForFunction(() => Number(document.querySelector('#match').dataset.tick) >= 120, null,
    { timeout: DEADLINE, polling: 100 });
  const made = await peers();
  // Every line Ada's page shows while its links restart.
  await ada.evaluate(() => {
    const el = document.querySelector('#match-waiting');
    window.__waitingLines = [];
    const note = () => { if (!el.hidden && el.textContent) window.__waitingLines.push(el.textContent); };
    window.__waitingObs = new MutationObserver(note);
    window.__waitingObs.observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
  });
  // As in the match tests' scenario 19: Ada's page is told that each of
  // its party connections (to Bo's and to Cy's page) lost its ICE path
  // for the moment of one connectionstatechange event, as Chromium says of
  // a path whose consent checks stopped; a loopback-only namespace has no
  // second network to move to, so the loss is the one thing simulated.
  // Ada's page offered on both links, so it restarts ICE on each; Bo's and
  // Cy's pages answer over the lobby; the rest is Chromium's own.
  const lostAt = Date.now();
  const lost = await ada.evaluate((n) => {
    const links = window.__pcList.slice(n).filter((pc) => pc.connectionState === 'connected');
    for (const pc of links) {
      Object.defineProperty(pc, 'connectionState', { configurable: true, get: () => 'disconnected' });
      pc.dispatchEvent(new Event('connectionstatechange'));
      delete pc.connectionState;
    }
    return links.length;
  }, before.Ada);
  assert.equal(lost, 2, "Ada's page has a party connection to each of the others");
  try {
    await ada.locator('#match[data-ice-restarts="2"]').waitFor({ timeout: DEADLINE });
    for (const p of ps.slice(1)) await p.locator('#match[data-ice-restarts="1"]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    await describeAll();
    throw e;
  }
  const restartMs = Date.now() - lostAt;
  for (const p of ps) {
    await p.locator('#match-waiting', { hasText: /econnecting/ }).waitFor({ state: 'hidden', timeout: DEADLINE });
  }
  assert.deepEqual(await peers(), made, 'no new RTCPeerConnection: the links stayed on their connections');
  for (const p of ps) {
    assert.equal(await p.locator('#match').getAttribute('data-rejoined'), null, 'no comeback');
  }
  for (const [n, p] of [['Ada', ps[0]], ['Bo', ps[1]], ['Cy', ps[2]]]) {
    const states = await p.evaluate((k) => window.__pcList.slice(k).map((pc) => pc.connectionState), before[n]);
    assert.equal(states.filter((s) => s === 'connected').length, 2, `${n}'s party connections: ${JSON.stringify(states)}`);
  }
  const lines = await ada.evaluate(() => window.__waitingLines);
  assert.ok(lines.includes('Reconnecting…'), `Ada's page said it reconnects: ${JSON.stringify(lines)}`);
  console.log(`party ice restart figures: ${JSON.stringify({ path_lost_to_restarted_on_every_page_ms: restartMs })}`);
  await playInSync(ps);
  await leaveAndCompare(ps);
});

test('a party of three where one page has no direct path plays on over the relay for its pairs, in sync; its relays closed, it comes back over new ones', { skip: !enabled }, async () => {
  await lobby();
  const cy = pages.Cy;
  // Cy's page keeps the relay sockets it opens from here on (the party's).
  await cy.evaluate(() => {
    const Real = window.WebSocket;
    window.__relays = [];
    window.WebSocket = new Proxy(Real, {
      construct(target, args, newTarget) {
        const ws = Reflect.construct(target, args, newTarget);
        if (String(args[0]).includes('/relay/')) window.__relays.push(ws);
        return ws;
      },
    });
  });
  // As in the match tests' scenario 9: Cy's page loses its media
  // permissions once the lobby mesh formed, so its party connections
  // gather no usable candidate. After the party's 3 s relay deadline each
  // of Cy's two pairs meets on the embedded server's relay for that pair;
  // Ada and Bo link directly. (A page launched with
  // --webrtc-ip-handling-policy=disable_non_proxied_udp gathers no
  // candidate at all, so its lobby mesh, which carries the invitation,
  // could not form either.) The permissions stay lost until the match is
  // over, so that Cy's comeback links find no direct path either.
  await cy.context().clearPermissions();
  try {
    const asked = Date.now();
    const ps = await party(['Bo', 'Cy', 'Di'], ['Bo', 'Cy']);
    const setupMs = Date.now() - asked;
    // Every page has a link through the relay (Cy's to each of the others),
    // and says so where it shows the path.
    for (const p of ps) {
      assert.equal(await p.locator('#match').getAttribute('data-path'), 'relayed');
    }
    await cy.locator('#match-quality', { hasText: /· relayed/ }).waitFor({ timeout: DEADLINE });
    assert.equal(await cy.evaluate(() => window.__relays.length), 2, "a relay socket for each of Cy's pairs");
    // Mid-match Cy's relay sockets close (its lobby links stay): its page
    // asks Ada's for a way back, and in the comeback room its new links
    // find no direct path: after the 3 s deadline each goes through that
    // room's relay for its pair, and Cy's fresh session takes its place
    // back over them.
    await cy.waitForFunction(() => Number(document.querySelector('#match').dataset.tick) >= 120, null,
      { timeout: DEADLINE, polling: 100 });
    const closedAt = Date.now();
    await cy.evaluate(() => window.__relays.forEach((ws) => ws.close()));
    try {
      await cy.locator('#match[data-rejoined]').waitFor({ timeout: DEADLINE });
      for (const p of ps) {
        await p.locator('#match-waiting', { hasText: /reconnecting/ }).waitFor({ state: 'hidden', timeout: DEADLINE });
      }
    } catch (e) {
      await describeAll();
      throw e;
    }
    const backMs = Date.now() - closedAt;
    const rejoined = Number(await cy.locator('#match').getAttribute('data-rejoined'));
    assert.ok(rejoined >= 120, `caught up to where the match was (${rejoined})`);
    assert.equal(await cy.evaluate(() => window.__relays.length), 4, "a new relay socket for each of Cy's pairs");
    assert.equal(await cy.locator('#match').getAttribute('data-side'), '2', 'back in its own place');
    for (const p of ps) {
      assert.equal(await p.locator('#match').getAttribute('data-path'), 'relayed');
    }
    console.log(`relayed party figures: ${JSON.stringify({ invite_to_relayed_match_ms: setupMs, relays_closed_to_back_in_match_ms: backMs, caught_up_to_tick: rejoined })}`);
    await playInSync(ps);
    await leaveAndCompare(ps);
  } finally {
    await cy.context().grantPermissions(['microphone', 'camera']);
  }
});

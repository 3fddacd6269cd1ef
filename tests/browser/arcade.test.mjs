// The arcade page (games/arcade-web: NtBA, the arena, Battleship and dots
// behind a hub, the whole hub in each page's match worker) in real headless
// Chromium: two pages meet in the lobby and start a match; NtBA runs first;
// both players pick the arena (its host in the host page's match worker); in
// the middle of it both players pick Battleship and play it to the end; both stay on the hub
// with the result and pick the arena again, then dots (lock-step), where
// each page steers its dot to the coin from what it shows until one has
// ten; then the guest leaves. No page makes a peer connection after the
// match's: every game runs over the one link.
// A second test picks dots on the title: the challenge names it ("Ada
// challenges you to Dots!"), and the match opens on dots and is played to
// its end, while a third page watches it. A third test: a party of three
// plays NtBA, the game picked on the challenger's title, although the two
// others' titles show dots, and a fourth page watches it; the three logs
// agree. A fourth: the guest's page is reloaded in the middle of dots and
// comes back into it; both logs agree after its return (a fifth: the
// host's). A sixth: a party of three plays dots, one page is closed for
// good, and the two others play on without it, in step; a seventh: the
// party host's page is closed for good, its place moves to Bo after its
// window, the two play on, and Cy's page reloaded comes back through Bo's.
// Runs only with ARCADE_WEB=1 and WEB_DIR pointing at the arcade page
// (scripts/ci/62-authority-web.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowser, openPage, joinLobby, entry, waitConnected, describePage, inviteToParty, partyPrompt, answerParty, DEADLINE,
} from './harness.mjs';

const enabled = process.env.ARCADE_WEB === '1';

const env = serverAndBrowser(enabled);
const { pages } = env;

// Counts the peer connections the page makes.
const countConnections = () => {
  window.__connections = 0;
  const Real = RTCPeerConnection;
  window.RTCPeerConnection = function (...args) {
    window.__connections += 1;
    return new Real(...args);
  };
  window.RTCPeerConnection.prototype = Real.prototype;
};

const module = '/pkg/web_shell.js';
const connections = (page) => page.evaluate(() => window.__connections);
const hold = async (page, key) => { await page.keyboard.down(key); await page.waitForTimeout(60); await page.keyboard.up(key); };

async function until(label, check) {
  const end = Date.now() + DEADLINE;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out: ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const tick = async (page) => Number(await page.locator('#match').getAttribute('data-tick'));
const summary = async (page) => (await page.locator('#match').getAttribute('data-summary')) ?? '';
const headline = (page) => page.locator('#match-headline').textContent();

// The games are read from what the page shows, as a player reads them: the
// match runs in the page's match worker, whose games' test probes the page
// cannot reach.
/** The arena's scores ("Amber 2 · Teal 0") are shown. */
const arenaShown = async (page) => /^[A-Z][a-z]+ -?\d+( · [A-Z][a-z]+ -?\d+)+$/.test(await summary(page));
/** Battleship as the page shows it: this page's side, whether it is its
 * turn, and how it ended ('won', 'lost' or null). */
const ships = async (page) => {
  const line = await headline(page);
  return {
    side: Number(await page.locator('#match').getAttribute('data-side')),
    my_turn: line.startsWith('Your turn'),
    ended: /you won!/.test(line) ? 'won' : /you lost\./.test(line) ? 'lost' : null,
  };
};

/** Dots: steers side `side`'s dot towards the coin the page shows until the
 * hub shows a result ("Orange wins 10-7."). The match runs with an input
 * delay, so a key is held for all but the last two cells of the way along
 * one axis, then the page shows where the dot got to. */
async function race(page, side) {
  const end = Date.now() + 4 * DEADLINE;
  // The signed shortest way from `from` to `to` on a wrapping axis.
  const way = (from, to, size) => {
    const ahead = (to - from + size) % size;
    return ahead <= size / 2 ? ahead : ahead - size;
  };
  for (;;) {
    if (/wins \d+-\d+\./.test(await headline(page))) return;
    if (Date.now() > end) throw new Error(`timed out: racing for the coin (${await summary(page)})`);
    const parts = (await summary(page)).split(' · ');
    const dot = parts[side]?.split('@')[1]?.split(',').map(Number);
    const coin = parts.at(-1)?.startsWith('coin ') ? parts.at(-1).slice(5).split(',').map(Number) : null;
    const dx = dot && coin ? way(dot[0], coin[0], 32) : 0;
    const dy = dot && coin ? way(dot[1], coin[1], 18) : 0;
    const [d, keys] = dx !== 0 ? [dx, ['ArrowLeft', 'ArrowRight']] : [dy, ['ArrowUp', 'ArrowDown']];
    if (d !== 0) {
      const key = d < 0 ? keys[0] : keys[1];
      await page.keyboard.down(key);
      await page.waitForTimeout(Math.max(1, Math.abs(d) - 2) * 16);
      await page.keyboard.up(key);
    }
    await page.waitForTimeout(150);
  }
}

/** Waits until Ada's and Bo's pages both run the match (describing both
 * if they do not), then puts the focus on each canvas. */
async function bothRunning(ada, bo) {
  try {
    for (const p of [ada, bo]) await p.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    console.log(await describePage(ada, 'Ada'));
    console.log(await describePage(bo, 'Bo'));
    throw e;
  }
  for (const p of [ada, bo]) await p.locator('#canvas').click();
}

/** Battleship: Space, then the right arrow, on each turn, to the end. */
async function sweep(page) {
  for (;;) {
    const p = await ships(page);
    if (p.ended) return p;
    if (p.my_turn) {
      await hold(page, 'Space');
      await hold(page, 'ArrowRight');
    }
    await page.waitForTimeout(20);
  }
}

test('the arcade: arena, then Battleship to the end, the arena again, then dots to the end, over one peer connection', { skip: !enabled }, async () => {
  const { server, browser } = env;
  const ada = await openPage(browser, server.url, { initScript: countConnections });
  const bo = await openPage(browser, server.url, { initScript: countConnections });
  pages.push(ada, bo);
  await joinLobby(ada, 'Ada');
  await joinLobby(bo, 'Bo');
  await waitConnected(ada, 1);
  await waitConnected(bo, 1);
  assert.equal(await ada.locator('#game-name').textContent(), 'Arcade');
  await entry(ada, 'Bo').locator('button[data-action="challenge"]').click({ timeout: DEADLINE });
  await entry(bo, 'Ada').locator('button[data-action="accept"]').click({ timeout: DEADLINE });
  await bothRunning(ada, bo);
  const made = [await connections(ada), await connections(bo)];

  // NtBA first, then both pick the arena.
  await until('NtBA runs on both pages', async () => (await summary(ada)).includes('HOME') && (await summary(bo)).includes('HOME'));
  await hold(ada, 'Digit2');
  await hold(bo, 'Digit2');
  await until('the arena runs on both pages', async () => (await arenaShown(ada)) && (await arenaShown(bo)));
  assert.equal(ada.workers().length, 1, 'one worker, the match\'s: the arena\'s host runs in it');

  // Bo proposes Battleship, Ada agrees.
  await hold(bo, 'Digit3');
  await ada.locator('#match-headline', { hasText: 'The other player proposes Battleship: press 3 to agree' }).waitFor({ timeout: DEADLINE });
  await hold(ada, 'Digit3');
  await until('Battleship runs on both pages', async () => (await summary(ada)).startsWith('shots') && (await summary(bo)).startsWith('shots'));
  assert.deepEqual([(await ships(ada)).side, (await ships(bo)).side], [0, 1]);

  const [a, b] = await Promise.all([sweep(ada), sweep(bo)]);
  assert.deepEqual([a.ended, b.ended].sort(), ['lost', 'won']);
  for (const p of [ada, bo]) {
    await p.locator('#match-headline', { hasText: 'next game: press 1 NtBA, 2 Arena, 3 Battleship' }).waitFor({ timeout: DEADLINE });
  }

  // The arena again.
  await hold(ada, 'Digit2');
  await hold(bo, 'Digit2');
  await until('the arena runs again', async () => (await arenaShown(ada)) && (await arenaShown(bo)));

  // Dots, the lock-step game, to its end.
  await hold(bo, 'Digit4');
  await hold(ada, 'Digit4');
  await until('dots runs on both pages', async () => (await summary(ada)).includes('coin') && (await summary(bo)).includes('coin'));
  assert.equal(ada.workers().length, 1, 'still the one match worker');
  await Promise.all([race(ada, 0), race(bo, 1)]);
  const [ours, theirs] = [await headline(ada), await headline(bo)];
  assert.match(ours, /^(Orange|Teal) wins 10-\d+\. · next game: press 1 NtBA, 2 Arena, 3 Battleship, 4 Dots/);
  assert.equal(ours, theirs, 'one result on both pages');

  assert.deepEqual([await connections(ada), await connections(bo)], made, 'no new peer connection for any game');

  await bo.locator('#leave').click();
  await bo.locator('#result-text', { hasText: 'You left the online match.' }).waitFor({ timeout: DEADLINE });
  await ada.locator('#result-text', { hasText: 'The other player left the match.' }).waitFor({ timeout: DEADLINE });
});

test('the arcade: dots picked on the title, a challenge to dots, the match opens on dots, a third page watches it, and it is played to its end', { skip: !enabled }, async () => {
  const { server, browser } = env;
  // The pages of the test before leave the lobby (their errors are still
  // checked at the end).
  await Promise.all(pages.map((p) => p.close()));
  const ada = await openPage(browser, server.url);
  const bo = await openPage(browser, server.url);
  const cy = await openPage(browser, server.url);
  pages.push(ada, bo, cy);
  // Ada picks dots on the title: remembered, and named by her challenges.
  await ada.locator('#local-opt-0').selectOption({ label: 'Dots' });
  await until('the choice is remembered', async () => (await ada.evaluate(() => localStorage.getItem('netplay.game'))) === 'Dots');
  await joinLobby(ada, 'Ada');
  await joinLobby(bo, 'Bo');
  await joinLobby(cy, 'Cy');
  for (const p of [ada, bo, cy]) await waitConnected(p, 2);
  await entry(ada, 'Bo').locator('button[data-action="challenge"]').click({ timeout: DEADLINE });
  const prompt = bo.locator('#challenge-prompt .prompt-line');
  await prompt.waitFor({ timeout: DEADLINE });
  assert.match(await prompt.textContent(), /^Ada#\S+ challenges you to Dots!$/);
  await entry(bo, 'Ada').locator('button[data-action="accept"]').click({ timeout: DEADLINE });
  await bothRunning(ada, bo);
  // Dots from the first frame: no other game ran before it.
  await until('dots runs on both pages', async () => (await summary(ada)).includes('coin') && (await summary(bo)).includes('coin'));
  assert.equal(ada.workers().length, 1, 'only the match worker: no arena host was started');
  // Cy watches it from the lobby: her page (its title on NtBA) opens on
  // dots, the game the hub plays, and both players count her.
  await entry(cy, 'Bo').locator('button[data-action="watch"]').click({ timeout: DEADLINE });
  try {
    await cy.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
    await until('the spectator shows dots', async () => (await summary(cy)).includes('coin'));
    for (const p of [ada, bo]) await p.locator('#match[data-watching="1"]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    for (const [name, p] of [['Ada', ada], ['Bo', bo], ['Cy', cy]]) console.log(await describePage(p, name));
    throw e;
  }
  await Promise.all([race(ada, 0), race(bo, 1)]);
  const [ours, theirs] = [await headline(ada), await headline(bo)];
  assert.match(ours, /^(Orange|Teal) wins 10-\d+\. · next game: press 1 NtBA/);
  assert.equal(ours, theirs, 'one result on both pages');
  // Dots is over and the hub plays nothing: Cy's watch ends, the players'
  // match goes on.
  await cy.locator('#result:not([hidden])').waitFor({ timeout: DEADLINE });

  await bo.locator('#leave').click();
  await bo.locator('#result-text', { hasText: 'You left the online match.' }).waitFor({ timeout: DEADLINE });
  await ada.locator('#result-text', { hasText: 'The other player left the match.' }).waitFor({ timeout: DEADLINE });
});

test('the arcade: a party of three plays NtBA, picked on the challenger\'s title, while the others\' titles show dots; a fourth page watches it', { skip: !enabled }, async () => {
  const { server, browser } = env;
  await Promise.all(pages.map((p) => p.close()));
  const named = {};
  for (const name of ['Ada', 'Bo', 'Cy', 'Di']) {
    named[name] = await openPage(browser, server.url);
    pages.push(named[name]);
  }
  const { Ada: ada, Bo: bo, Cy: cy, Di: di } = named;
  // Every title but Ada's shows dots.
  for (const p of [bo, cy, di]) await p.locator('#local-opt-0').selectOption({ label: 'Dots' });
  await ada.locator('#local-opt-0').selectOption({ label: 'NtBA' });
  for (const [name, p] of Object.entries(named)) await joinLobby(p, name);
  for (const p of Object.values(named)) await waitConnected(p, 3);
  try {
    await inviteToParty(named, 'Ada', ['Bo', 'Cy']);
  } catch (e) {
    for (const [name, p] of Object.entries(named)) console.log(await describePage(p, name));
    console.log(await ada.locator('#party-panel').textContent());
    throw e;
  }
  assert.match(await partyPrompt(bo, 'Ada').textContent(), /NtBA/, 'the invitation names the game');
  const ps = await answerParty(named, 'Ada', ['Bo', 'Cy'], ['Bo', 'Cy'], server);
  // NtBA on every page of the party, whatever its own title showed.
  await until('NtBA runs on the three pages', async () =>
    (await Promise.all(ps.map(summary))).every((s) => s.includes('HOME')));
  // Di watches through Bo: her page opens on NtBA too.
  await entry(di, 'Bo').locator('button[data-action="watch"]').click({ timeout: DEADLINE });
  try {
    await di.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
    await until('the spectator shows NtBA', async () => (await summary(di)).includes('HOME'));
  } catch (e) {
    for (const [name, p] of Object.entries(named)) console.log(await describePage(p, name));
    throw e;
  }
  for (const p of ps) await p.locator('#match[data-watching="1"]').waitFor({ timeout: DEADLINE });
  const at = 120;
  await until(`the players pass tick ${at}`, async () => {
    const ticks = await Promise.all(ps.map((p) => p.locator('#match').getAttribute('data-tick')));
    return ticks.every((t) => Number(t) > at);
  });
  await ada.locator('#leave').click();
  for (const p of ps) await p.locator('#result:not([hidden])').waitFor({ timeout: DEADLINE });
  const hashAt = (p) => p.evaluate(async ([m, t]) => (await import(m)).matchHashAt(t) ?? null, [module, at]);
  const hashes = await Promise.all(ps.map(hashAt));
  assert.match(hashes[0] ?? '', /^[0-9a-f]{16}$/, `a hash at tick ${at}`);
  assert.deepEqual(hashes, [hashes[0], hashes[0], hashes[0]], `matchHashAt(${at}) on the three pages`);
});

// A page of a match of two reloaded in the middle of dots (the guest's, or
// the host's) comes back into it, the hub in the match worker: the other
// page's match never stops, and both pages agree after the return.
async function reloadInDots(reloadHost) {
  const { server, browser } = env;
  await Promise.all(pages.map((p) => p.close()));
  const ada = await openPage(browser, server.url);
  const bo = await openPage(browser, server.url);
  pages.push(ada, bo);
  await ada.locator('#local-opt-0').selectOption({ label: 'Dots' });
  await joinLobby(ada, 'Ada');
  await joinLobby(bo, 'Bo');
  await waitConnected(ada, 1);
  await waitConnected(bo, 1);
  await entry(ada, 'Bo').locator('button[data-action="challenge"]').click({ timeout: DEADLINE });
  await entry(bo, 'Ada').locator('button[data-action="accept"]').click({ timeout: DEADLINE });
  await bothRunning(ada, bo);
  await until('dots runs a while on Bo\'s page', async () => (await summary(bo)).includes('coin') && (await tick(bo)) > 120);
  // Both pages keep what they need to come back in their session storage.
  for (const p of [ada, bo]) {
    await p.waitForFunction(() => sessionStorage.getItem('rejoin') !== null, null, { timeout: DEADLINE, polling: 100 });
  }
  const [away, stayer] = reloadHost ? [ada, bo] : [bo, ada];
  const awayName = reloadHost ? 'Ada' : 'Bo';
  await away.reload();
  try {
    await away.locator('#match[data-rejoined]:not([hidden])').waitFor({ timeout: DEADLINE });
    await until(`dots runs again on ${awayName}'s page`, async () => (await summary(away)).includes('coin'));
  } catch (e) {
    for (const [name, p] of [['Ada', ada], ['Bo', bo]]) console.log(await describePage(p, name, 80));
    throw e;
  }
  const back = Number(await away.locator('#match').getAttribute('data-rejoined'));
  const at = back + 120;
  await until(`both pass tick ${at}`, async () => (await tick(ada)) > at && (await tick(bo)) > at);
  assert.equal(await stayer.locator('#match').getAttribute('data-state'), 'running', 'the other page\'s match never stopped');
  await bo.locator('#leave').click();
  for (const p of [ada, bo]) await p.locator('#result:not([hidden])').waitFor({ timeout: DEADLINE });
  await logsAgreeAt(ada, bo, at);
}

test('the arcade: a guest page reloaded in the middle of dots comes back into it (the hub in the match worker), and both pages agree', { skip: !enabled }, async () => {
  await reloadInDots(false);
});

test('the arcade: the host\'s page reloaded in the middle of dots comes back into it, and both pages agree', { skip: !enabled }, async () => {
  await reloadInDots(true);
});

/** Ada, Bo and Cy meet in the lobby with dots picked on their titles; Ada
 * invites the two to a party, both accept, and dots runs with three dots
 * on every page. */
async function dotsPartyOfThree() {
  const { server, browser } = env;
  await Promise.all(pages.map((p) => p.close()));
  const named = {};
  for (const name of ['Ada', 'Bo', 'Cy']) {
    named[name] = await openPage(browser, server.url);
    pages.push(named[name]);
    await named[name].locator('#local-opt-0').selectOption({ label: 'Dots' });
  }
  for (const [name, p] of Object.entries(named)) await joinLobby(p, name);
  for (const p of Object.values(named)) await waitConnected(p, 2);
  await inviteToParty(named, 'Ada', ['Bo', 'Cy']);
  assert.match(await partyPrompt(named.Bo, 'Ada').textContent(), /Dots/, 'the invitation names the game');
  await answerParty(named, 'Ada', ['Bo', 'Cy'], ['Bo', 'Cy'], server);
  const three = Object.values(named);
  await until('dots runs with three dots on every page', async () => {
    const all = await Promise.all(three.map(summary));
    const ticks = await Promise.all(three.map(tick));
    return all.every((s) => s.split(' · ').length === 4) && ticks.every((t) => t > 120);
  });
  return { ada: named.Ada, bo: named.Bo, cy: named.Cy };
}

/** The two pages that stayed agree on the state at tick `at` once the
 * match ended (their logs replayed). */
async function logsAgreeAt(a, b, at) {
  const hashAt = (p) => p.evaluate(async ([m, t]) => (await import(m)).matchHashAt(t) ?? null, [module, at]);
  const [ha, hb] = [await hashAt(a), await hashAt(b)];
  assert.match(ha ?? '', /^[0-9a-f]{16}$/, `a hash at tick ${at}`);
  assert.equal(hb, ha, `both logs replay to one state at tick ${at}`);
}

test('the arcade: a party of three plays dots; one page is closed for good and the two others play on without its dot', { skip: !enabled }, async () => {
  const { ada, bo, cy } = await dotsPartyOfThree();
  await cy.close();
  const stayed = [ada, bo];
  try {
    // Cy's place is held (the host counts it down; Bo's page may hear of
    // the bench before its own link to Cy's closed page is seen to close),
    // its dot standing still, and the two play on.
    await ada.locator('#match[data-held^="2 "][data-benched="2"]').waitFor({ timeout: DEADLINE });
    await bo.locator('#match[data-benched="2"]').waitFor({ timeout: DEADLINE });
    const held = Math.min(...(await Promise.all(stayed.map(tick))));
    await until(`both pass tick ${held + 120} while Cy's place is held`, async () =>
      (await Promise.all(stayed.map(tick))).every((t) => t > held + 120));
    // The 20 s run out: Cy left, and the match goes on for the two.
    for (const p of stayed) await p.locator('#match:not([data-held]):not([data-benched])').waitFor({ timeout: DEADLINE });
  } catch (e) {
    for (const [name, p] of [['Ada', ada], ['Bo', bo]]) console.log(await describePage(p, name, 80));
    throw e;
  }
  const left = Math.max(...(await Promise.all(stayed.map(tick))));
  const at = left + 120;
  await until(`both pass tick ${at} after Cy left`, async () =>
    (await Promise.all(stayed.map(tick))).every((t) => t > at));
  for (const p of stayed) {
    assert.equal(await p.locator('#match').getAttribute('data-state'), 'running', 'the match goes on');
  }
  await bo.locator('#leave').click();
  for (const p of stayed) await p.locator('#result:not([hidden])').waitFor({ timeout: DEADLINE });
  await logsAgreeAt(ada, bo, at);
});

test('the arcade: a party of three plays dots; the host\'s page is closed for good: Bo hosts, the two play on, and Cy\'s page reloaded comes back through Bo\'s', { skip: !enabled }, async () => {
  const { ada, bo, cy } = await dotsPartyOfThree();
  const stayed = [bo, cy];
  for (const p of stayed) {
    await p.waitForFunction(() => sessionStorage.getItem('rejoin') !== null, null, { timeout: DEADLINE, polling: 100 });
  }
  // Every line the waiting notice shows, as it shows it.
  const recordLines = () => {
    const el = document.querySelector('#match-waiting');
    window.__waitingLines = [];
    const note = () => { if (!el.hidden && el.textContent) window.__waitingLines.push(el.textContent); };
    window.__waitingObs = new MutationObserver(note);
    window.__waitingObs.observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
  };
  await Promise.all(stayed.map((p) => p.evaluate(recordLines)));
  await ada.close();
  let moved;
  try {
    // Ada's place is held for its window (20 s), then moves to Bo, the
    // lowest guest: both pages say so, and the two play on.
    for (const p of stayed) await p.locator('#match[data-host="1"]').waitFor({ timeout: DEADLINE });
    moved = Math.max(...(await Promise.all(stayed.map(tick))));
    const [boLines, cyLines] = await Promise.all(stayed.map((p) => p.evaluate(() => window.__waitingLines)));
    assert.ok(boLines.includes('Ada left; you host now'), `Bo's page says it hosts: ${JSON.stringify(boLines)}`);
    assert.ok(cyLines.includes('Ada left; Bo hosts now'), `Cy's page says Bo hosts: ${JSON.stringify(cyLines)}`);
    await until(`both pass tick ${moved + 120} under Bo`, async () =>
      (await Promise.all(stayed.map(tick))).every((t) => t > moved + 120));
    for (const p of stayed) {
      assert.equal(await p.locator('#match').getAttribute('data-state'), 'running', 'the match goes on');
    }
    // Cy's page reloads and comes back into its slot, through Bo's page.
    await cy.reload();
    await cy.locator('#match[data-rejoined]:not([hidden])').waitFor({ timeout: DEADLINE });
  } catch (e) {
    for (const [name, p] of [['Bo', bo], ['Cy', cy]]) console.log(await describePage(p, name, 80));
    throw e;
  }
  assert.equal(await cy.locator('#match').getAttribute('data-host'), '1', 'Cy\'s page back under Bo');
  assert.equal(await cy.locator('#match').getAttribute('data-side'), '2', 'in its own slot');
  const at = Number(await cy.locator('#match').getAttribute('data-rejoined')) + 120;
  assert.ok(at > moved, 'Cy came back after the move');
  await until(`both pass tick ${at}`, async () => (await Promise.all(stayed.map(tick))).every((t) => t > at));
  await cy.locator('#leave').click();
  for (const p of stayed) await p.locator('#result:not([hidden])').waitFor({ timeout: DEADLINE });
  await logsAgreeAt(bo, cy, at);
});

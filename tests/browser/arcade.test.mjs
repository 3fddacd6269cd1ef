// The arcade page (games/arcade-web: the arena and Battleship behind a hub)
// in real headless Chromium: two pages meet in the lobby and start a match;
// the arena runs first (its host in a worker); in the middle of it both
// players pick Battleship and play it to the end; both stay on the hub with
// the result and pick the arena again; then the guest leaves. No page makes
// a peer connection after the match's: every game runs over the one link.
// Runs only with ARCADE_WEB=1 and WEB_DIR pointing at the arcade page
// (scripts/ci/62-authority-web.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, joinLobby, entry, waitConnected, describePage, DEADLINE } from './harness.mjs';

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
const arena = (page) => page.evaluate(async (m) => JSON.parse((await import(m)).arenaProbe()), module);
const ships = (page) => page.evaluate(async (m) => JSON.parse((await import(m)).battleshipProbe()), module);
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

test('the arcade: arena, then Battleship to the end, then the arena again, over one peer connection', { skip: !enabled }, async () => {
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
  try {
    for (const p of [ada, bo]) await p.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    console.log(await describePage(ada, 'Ada'));
    console.log(await describePage(bo, 'Bo'));
    throw e;
  }
  for (const p of [ada, bo]) await p.locator('#canvas').click();
  const made = [await connections(ada), await connections(bo)];

  // The arena first.
  await until('the arena runs on both pages', async () => (await arena(ada)).role === 'host' && (await arena(bo)).tick !== null);
  assert.equal(ada.workers().length, 1, 'the arena host runs its worker');

  // Bo proposes Battleship, Ada agrees.
  await hold(bo, 'Digit2');
  await ada.locator('#match-headline', { hasText: 'The other player proposes Battleship: press 2 to agree' }).waitFor({ timeout: DEADLINE });
  await hold(ada, 'Digit2');
  await until('Battleship runs on both pages', async () => (await ships(ada)).side === 0 && (await ships(bo)).side === 1);
  await until('the arena worker is gone', async () => ada.workers().length === 0);

  const [a, b] = await Promise.all([sweep(ada), sweep(bo)]);
  assert.deepEqual([a.ended, b.ended].sort(), ['lost', 'won']);
  for (const p of [ada, bo]) {
    await p.locator('#match-headline', { hasText: 'next game: press 1 Arena, 2 Battleship' }).waitFor({ timeout: DEADLINE });
  }

  // The arena again.
  await hold(ada, 'Digit1');
  await hold(bo, 'Digit1');
  await until('the arena runs again', async () => (await arena(ada)).role === 'host' && (await arena(bo)).role === 'guest' && (await arena(bo)).tick !== null);
  assert.equal(ada.workers().length, 1, 'a new worker for the new arena');

  assert.deepEqual([await connections(ada), await connections(bo)], made, 'no new peer connection for any game');

  await bo.locator('#leave').click();
  await bo.locator('#result-text', { hasText: 'You left the online match.' }).waitFor({ timeout: DEADLINE });
  await ada.locator('#result-text', { hasText: 'The other player left the match.' }).waitFor({ timeout: DEADLINE });
});

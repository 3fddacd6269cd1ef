// Battleship (games/battleship-web) in real headless Chromium: two pages
// meet in the lobby, one challenges, the other accepts, and the match link
// the shell opens carries a hidden-state game. Each page places its own
// fleet and keeps it; both players sweep the other board with the keyboard
// until one fleet is sunk. Every binary message each page puts on a data
// channel is recorded below the shell and checked: no message names a cell
// of the sender's board that the other side had not fired at. Runs only
// with BATTLESHIP_WEB=1 and WEB_DIR pointing at the Battleship page
// (scripts/ci/62-authority-web.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, joinLobby, entry, waitConnected, describePage, DEADLINE } from './harness.mjs';

const enabled = process.env.BATTLESHIP_WEB === '1';
const GAME_DEADLINE = 180_000;

const env = serverAndBrowser(enabled);
const { pages } = env;

// Records every binary payload sent on any data channel (the match link's
// messages; the lobby's are text).
const recordSends = () => {
  window.__sent = [];
  const send = RTCDataChannel.prototype.send;
  RTCDataChannel.prototype.send = function (data) {
    if (typeof data !== 'string') {
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data)
        : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      window.__sent.push(Array.from(bytes));
    }
    return send.call(this, data);
  };
};

const probe = (page) => page.evaluate(async () => JSON.parse((await import('/pkg/web_shell.js')).battleshipProbe()));
// The page's address, with the options in PAGE_QUERY: stage 62 runs this
// test on the arcade page with its match kept on the page
// (`?match-worker=off`), where the probe above reads it; by default the
// arcade runs its matches in a worker, whose probe the page cannot read.
const pageUrl = (server) => new URL(process.env.PAGE_QUERY ?? '', server.url).href;

/**
 * The cells of the sender's own board that a message names: the cell of
 * a result and the cells of a sunk ship (postcard: variant, then fields;
 * a cell is two bytes). A shot names the receiver's board, not the
 * sender's.
 */
function ownCellsNamed(raw, arcade) {
  // The arcade's hub messages carry no game data; a game datagram is
  // `1, generation, message`, and Battleship is the second game played.
  if (arcade && raw[0] === 0) return [];
  if (arcade) assert.deepEqual(raw.slice(0, 2), [1, 1], 'a Battleship datagram of the second game');
  const m = arcade ? raw.slice(2) : raw;
  if (m[0] === 0) {
    assert.equal(m.length, 3, 'a shot is three bytes');
    return [];
  }
  if (m[0] === 2) {
    assert.equal(m.length, 1, 'a goodbye is one byte');
    return [];
  }
  assert.equal(m[0], 1, 'a message is a shot, a result or a goodbye');
  const cells = [[m[1], m[2]]];
  if (m[3] === 2) {
    const n = m[4];
    for (let i = 0; i < n; i += 1) cells.push([m[5 + 2 * i], m[6 + 2 * i]]);
    assert.equal(m.length, 5 + 2 * n + 1, 'a sunk result: its cells and the last-ship flag');
  } else {
    assert.equal(m.length, 4, 'a miss or a hit names one cell');
  }
  return cells;
}

/** Sweeps the other board: Space held, then the right arrow, on each turn. */
async function play(page) {
  const hold = async (key) => { await page.keyboard.down(key); await page.waitForTimeout(40); await page.keyboard.up(key); };
  for (;;) {
    const p = await probe(page);
    if (p.ended || p.side === null) return p;
    if (p.my_turn) {
      await hold('Space');
      await hold('ArrowRight');
    }
    await page.waitForTimeout(20);
  }
}

test('Battleship between two Chromium pages: a game to the end, no unhit ship cell on the wire', { skip: !enabled }, async () => {
  const { server, browser } = env;
  const ada = await openPage(browser, pageUrl(server), { initScript: recordSends });
  const bo = await openPage(browser, pageUrl(server), { initScript: recordSends });
  pages.push(ada, bo);
  await joinLobby(ada, 'Ada');
  await joinLobby(bo, 'Bo');
  await waitConnected(ada, 1);
  await waitConnected(bo, 1);
  const name = await ada.locator('#game-name').textContent();
  assert.ok(['Battleship', 'Arcade'].includes(name));
  const arcade = name === 'Arcade';
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
  const sentBefore = await Promise.all([ada, bo].map((p) => p.evaluate(() => window.__sent.length)));
  if (arcade) {
    // NtBA runs first: both pick Battleship (the arcade's third game).
    for (const p of [ada, bo]) {
      await p.keyboard.down('Digit3');
      await p.waitForTimeout(60);
      await p.keyboard.up('Digit3');
    }
    const until = Date.now() + DEADLINE;
    while ((await probe(bo)).side !== 1 || (await probe(ada)).side !== 0) {
      assert.ok(Date.now() < until, 'Battleship starts on both pages');
      await ada.waitForTimeout(50);
    }
  }
  const first = await probe(ada);
  assert.equal(first.side, 0, 'the challenger fires first');
  assert.equal(first.my_turn, true);

  const start = Date.now();
  let timer;
  const [a, b] = await Promise.race([
    Promise.all([play(ada), play(bo)]),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('the game did not end in time')), GAME_DEADLINE); }),
  ]).finally(() => clearTimeout(timer));
  const results = [a.ended, b.ended].sort();
  assert.deepEqual(results, ['lost', 'won']);
  const winner = a.ended === 'won' ? 'Ada' : 'Bo';
  console.log(`battleship: ${winner} won in ${Date.now() - start} ms; shots ${a.known.length} and ${b.known.length}`);

  // What each page learned of the other board, it learned by firing at it.
  for (const [me, other] of [[a, b], [b, a]]) {
    const shot = new Set(other.shot_at.map(String));
    const fleet = new Set(other.fleet.map(String));
    for (const [x, y, mark] of me.known) {
      assert.ok(shot.has(`${x},${y}`), 'known only by firing at it');
      assert.equal(mark !== 1, fleet.has(`${x},${y}`), 'a hit is a ship cell, a miss is water');
    }
  }
  // Nothing either page sent names a cell of its own board the other had
  // not fired at: the fleet's unhit cells never left the page.
  for (const [page, me, i] of [[ada, a, 0], [bo, b, 1]]) {
    let sent = (await page.evaluate(() => window.__sent)).slice(sentBefore[i]);
    // On the arcade page the arena's datagrams (generation 0) come first.
    if (arcade) sent = sent.filter((m) => !(m[0] === 1 && m[1] === 0));
    assert.ok(sent.length >= me.shot_at.length, 'a result for every shot received');
    const shot = new Set(me.shot_at.map(String));
    for (const m of sent) {
      for (const c of ownCellsNamed(m, arcade)) assert.ok(shot.has(String(c)), `a message names ${c}, never fired at`);
    }
    const unhit = me.fleet.filter((c) => !shot.has(String(c)));
    if (me.ended === 'won') assert.ok(unhit.length > 0, 'the winner kept some of its fleet hidden');
  }

  // The result stays up, then both matches end by themselves (on the
  // arcade page, both players stay on its hub with the result).
  const wonPage = winner === 'Ada' ? ada : bo;
  const lostPage = winner === 'Ada' ? bo : ada;
  const where = arcade ? '#match-headline' : '#result-text';
  await wonPage.locator(where, { hasText: 'You sank the whole fleet: you won!' }).waitFor({ timeout: DEADLINE });
  await lostPage.locator(where, { hasText: 'Your fleet was sunk: you lost.' }).waitFor({ timeout: DEADLINE });
});

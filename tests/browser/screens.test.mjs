// The README's pictures of the NtBA page, taken in real headless Chromium
// at three window sizes (1280×800, 1920×1080 and a phone's 390×844), each
// with what could go wrong at that size checked before the picture:
//   title      the title screen, the whole screen inside the window's width;
//   invitation the lobby of an invited page, a party invitation showing
//              with its Accept button inside the window;
//   match      a 2v2 party match in play (four pages, the short match);
//   spectator  the same match on a fifth page that pressed Watch;
//   result     the online result screen: the final score, the same on
//              every player's page and the spectator's.
// On the three court views the canvas keeps 16:9, fills its column and
// nothing is cut off or scrolls (assertCourtFillsColumn). One match feeds
// the three sizes: each page is resized in turn (setViewportSize).
//
// Runs only with NTBA_PARTY=1 and WEB_DIR pointing at the NtBA page
// (scripts/ci/61-party.sh). The pictures go to SCREENS_DIR (by default
// target/browser/screens); `scripts/ci/61-party.sh --screenshot` sets it to
// docs/screens, where the README takes them from. Named VIEW-WxH.png, at
// device scale 1; the title and the lobby are cropped to the page's column
// (at most 760 px wide), the court views are the whole window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  serverAndBrowser, openPage, fillLobby, inviteToParty, answerParty, partyPrompt, entry, describeAll,
  assertEndedTogether, assertCourtFillsColumn, matchDeadline, NTBA_RESULT, DEADLINE,
} from './harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = process.env.SCREENS_DIR || path.join(ROOT, 'target/browser/screens');
const enabled = process.env.NTBA_PARTY === '1';
const SIZES = [[1280, 800], [1920, 1080], [390, 844]];
// The match has run a few seconds (60 ticks a second) before its picture.
const SHOT_TICK = 300;

const env = serverAndBrowser(enabled);

/** `page` at each size in turn: `check` (if any), then its picture VIEW-WxH.png. */
async function shootAtEachSize(page, view, check, { court = false } = {}) {
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    if (check) await check(width, height);
    const file = path.join(OUT, `${view}-${width}x${height}.png`);
    // Pulsing prompts stand still for the picture.
    const options = { path: file, animations: 'disabled' };
    if (!court) {
      // The page's column, down to its end or the window's bottom.
      const m = await page.locator('main').boundingBox();
      options.clip = { x: m.x, y: 0, width: m.width, height: Math.min(height, m.y + m.height) };
    }
    await page.screenshot(options);
  }
}

/**
 * The element `selector` names on `page` lies inside the window (nothing
 * of it cut off). Measured in one go in the page: the invitation is drawn
 * anew as its time left counts down.
 */
async function assertInWindow(page, selector, what, width, height) {
  const b = await page.evaluate((sel) => {
    const e = document.querySelector(sel);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  }, selector);
  assert.ok(b && b.width > 0 && b.x >= 0 && b.y >= 0 && b.x + b.width <= width && b.y + b.height <= height,
    `${what} inside the ${width}x${height} window: ${JSON.stringify(b)}`);
}

test('the README\'s screens at 1280x800, 1920x1080 and 390x844: title, a party invitation, a 2v2 match, a spectator, the result; the court fills its column at each', { skip: !enabled, timeout: 300_000 }, async () => {
  mkdirSync(OUT, { recursive: true });

  const title = await openPage(env.browser, env.server.url);
  env.pages.push(title);
  await title.locator('#btn-online').waitFor({ state: 'visible', timeout: DEADLINE });
  await shootAtEachSize(title, 'title', async (width, height) => {
    assert.notEqual(await title.locator('#game-name').textContent(), 'Loading…');
    await assertInWindow(title, '#btn-online', 'the Online button', width, height);
    const scrollWidth = await title.evaluate(() => document.scrollingElement.scrollWidth);
    assert.ok(scrollWidth <= width, `nothing wider than the ${width} px window: ${scrollWidth}`);
  });
  await title.context().close();

  const pages = await fillLobby(env, ['Ada', 'Bo', 'Cy', 'Di', 'Eve']);
  const invited = ['Bo', 'Cy', 'Di'];
  await inviteToParty(pages, 'Ada', invited, { short: true });
  const prompt = partyPrompt(pages.Bo, 'Ada');
  await shootAtEachSize(pages.Bo, 'invitation', async (width, height) => {
    await prompt.waitFor({ timeout: DEADLINE });
    await assertInWindow(pages.Bo, '#party-prompt .prompt', 'the invitation', width, height);
    await assertInWindow(pages.Bo, '#party-prompt .prompt button[data-action="party-accept"]', 'Accept', width, height);
  });
  const ps = await answerParty(pages, 'Ada', invited, invited, env.server);
  const [ada, bo] = ps;
  const eve = pages.Eve;

  // Eve watches: Watch next to Bo, who plays.
  await entry(eve, 'Bo').locator('button[data-action="watch"]').click({ timeout: DEADLINE });
  try {
    await eve.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
    for (const p of ps) await p.locator('#match[data-watching="1"]').waitFor({ timeout: DEADLINE });
  } catch (e) {
    await describeAll(pages, env.server);
    throw e;
  }
  // Two players run (focus off the buttons first), so the court is not still.
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

  // The final buzzer on every page, the spectator's too.
  const everyone = [...ps, eve];
  // The short match (2 × 30 s of game clock, at most three 15 s
  // overtimes and the pauses after baskets and turnovers) has as long as
  // it moves.
  const deadline = matchDeadline(everyone);
  const over = (p) => p.locator('#result-text', { hasText: NTBA_RESULT }).count();
  while (!(await Promise.all(everyone.map(over))).every((n) => n === 1)) {
    if (await deadline.expired()) {
      await describeAll(pages, env.server);
      assert.fail('every page shows the result of the short match');
    }
    // Polling the pages while they play.
    await ada.waitForTimeout(1_000);
  }
  const score = await assertEndedTogether(everyone);
  await shootAtEachSize(ada, 'result', async (width, height) => {
    await assertCourtFillsColumn(ada);
    assert.equal(await ada.locator('#result-text').textContent(), score);
    await assertInWindow(ada, '#result-text', 'the final score', width, height);
    await assertInWindow(ada, '#play-again', 'Play again', width, height);
  }, { court: true });
});

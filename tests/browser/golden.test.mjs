// The golden hashes of every game in the browsers' own WebAssembly engines:
// headless Chromium (V8) and headless Firefox ESR (SpiderMonkey) open the
// golden page (tests/golden/index.html, served by the embedded signalling
// server from WEB_DIR with spec.json and the games' check modules, built
// with the profile the pages ship) and must reproduce every value pinned
// in the games' Rust sources. Run by scripts/ci/55-engines.sh.
//
// The time one golden replay takes in each browser is printed as
// "golden figures: {...}", never asserted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, DEADLINE } from './harness.mjs';
import { launchFirefox, ignoredEmulation } from './firefox.mjs';
import { describe } from '../golden/golden.js';

let server;
const figures = {};

before(async () => {
  server = await startServer();
});

after(async () => {
  await server?.stop();
  console.log(`golden figures: ${JSON.stringify(figures)}`);
});

/** Opens the golden page in `browser` and returns its run, or fails. */
async function goldenRun(browser, engine) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}/index.html`);
  // Each replay is timed for about half a second per game: allow a
  // slow machine plenty.
  await page.locator('#golden:not([data-state="running"])').waitFor({ timeout: 4 * DEADLINE });
  const { state, result, error } = await page.$eval('#golden', (e) => ({ ...e.dataset }));
  await page.close();
  assert.deepEqual(errors, [], `${engine}: no uncaught page errors`);
  assert.equal(state, 'done', `${engine}: the golden page failed: ${error}`);
  const run = JSON.parse(result);
  for (const line of describe(engine, run)) console.log(line);
  return run;
}

function check(engine, run) {
  assert.ok(run.results.length > 0, `${engine}: the page ran checks`);
  for (const r of run.results) {
    assert.equal(r.got, r.expect, `${engine}: ${r.game} ${r.name}`);
  }
  assert.ok(run.ok);
  // Every game's golden replay was timed.
  const games = new Set(run.results.map((r) => r.game));
  for (const g of games) {
    const t = run.timings.find((x) => x.game === g);
    assert.ok(t && t.ms > 0, `${engine}: ${g}'s golden replay was timed`);
  }
  figures[engine] = Object.fromEntries(run.timings.map((t) => [`${t.game} ${t.name} ms`, t.ms]));
}

test('Chromium reproduces every pinned golden hash', async () => {
  const browser = await launchBrowser();
  try {
    figures.chromium_version = browser.version();
    check('chromium', await goldenRun(browser, 'chromium'));
  } finally {
    await browser.close();
  }
});

test('Firefox ESR reproduces every pinned golden hash', async () => {
  const browser = await launchFirefox();
  try {
    figures.firefox_version = browser.version();
    check('firefox', await goldenRun(browser, 'firefox'));
    console.log(`firefox: emulation commands it does not know, ignored: ${ignoredEmulation().join(', ') || 'none'}`);
  } finally {
    await browser.close();
  }
});

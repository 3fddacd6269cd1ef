// Shared helpers for the browser tests: start the embedded signalling server
// (serving the built page), launch Debian's Chromium through playwright-core,
// and drive lobby pages. Every wait is on an event or a DOM condition with a
// generous deadline; nothing sleeps and hopes.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { chromium } = require(path.join(ROOT, 'node_modules/playwright-core'));

export const SERVER_BIN = process.env.SIGNALING_SERVER;
export const WEB_DIR = process.env.WEB_DIR || path.join(ROOT, 'target/web');
export const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/lib/chromium/chromium';
export const DEADLINE = 30_000;

/**
 * Starts signaling-server; resolves with { url, port, proc, stop(), recentLog() }
 * (recentLog: the last 4,000 characters of its JSON log, for a failed test).
 */
export async function startServer(listen = '127.0.0.1:0', extraArgs = []) {
  if (!SERVER_BIN) throw new Error('set SIGNALING_SERVER to the signaling-server binary');
  const args = ['--listen', listen, '--allowed-origins', '*', '--stun-urls', '',
    '--rate-limit-per-minute', '0', '--max-lobby-sockets-per-ip', '0', '--static', WEB_DIR, ...extraArgs];
  const proc = spawn(SERVER_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const lines = createInterface({ input: proc.stdout });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), DEADLINE);
    proc.once('exit', (code) => reject(new Error(`server exited (${code}): ${stderr}`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      const m = /^listening on (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]); else reject(new Error(`unexpected first line: ${line}`));
    });
  });
  const port = Number(new URL(url).port);
  const stop = () => new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.once('exit', resolve);
    proc.kill('SIGTERM');
  });
  return { url, port, proc, stop, recentLog: () => stderr };
}

// `extraArgs`: more Chromium switches (a browser that gathers no ICE
// candidate at all, say).
export async function launchBrowser(extraArgs = []) {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      // Host candidates on 127.0.0.1 (with the permissions below), so data
      // channels open inside a loopback-only network namespace.
      '--allow-loopback-in-peer-connection', ...extraArgs],
  });
}

/** A page in its own browser context (separate storage, like another person). */
// `signalingUrl` stands for a deployment whose config.js names another
// signalling service (the page accepts `?signal=` only for its own origin
// or that configured one).
export async function openPage(browser, url, { initScript, permissions = ['microphone', 'camera'], deviceScaleFactor = 1, signalingUrl, device = {} } = {}) {
  // `device`: more context options (a phone's viewport and touch screen).
  const context = await browser.newContext({
    permissions,
    viewport: { width: 760, height: 900 },
    deviceScaleFactor,
    ...device,
  });
  if (initScript) await context.addInitScript(initScript);
  if (signalingUrl !== undefined) {
    await context.route('**/config.js', (route) => route.fulfill({
      contentType: 'text/javascript',
      body: `window.SIGNALING_URL = ${JSON.stringify(signalingUrl)};\n`,
    }));
  }
  const page = await context.newPage();
  page.dialogs = [];
  page.on('dialog', (d) => { page.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  // Uncaught exceptions (a wasm panic among them).
  page.consoleErrors = [];
  page.on('pageerror', (e) => page.consoleErrors.push(String(e)));
  // Console messages of type 'error' (the page's log::error!, and the
  // browser's own, such as a failed load, which gets its address appended
  // as " <- URL"); tests decide which they expect.
  page.errorLogs = [];
  // Every console line (the last 300), for diagnosing a failed wait.
  page.logs = [];
  page.on('console', (m) => {
    page.logs.push(`${m.type()}: ${m.text()}`);
    if (page.logs.length > 300) page.logs.shift();
  });
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    page.errorLogs.push(text.startsWith('Failed to load resource') ? `${text} <- ${m.location().url}` : text);
  });
  await page.goto(url);
  return page;
}

/**
 * The page's console errors not matched by one of `allowed` (regular
 * expressions, each matched against a whole message).
 */
export function unexpectedErrorLogs(page, allowed = []) {
  return page.errorLogs.filter((m) => !allowed.some((re) => re.test(m)));
}

/** Title -> Online -> name -> Join. */
export async function joinLobby(page, name) {
  await page.locator('#btn-online').click({ timeout: DEADLINE });
  await page.locator('#name').fill(name);
  await page.locator('#join').click();
  await page.locator('#lobby[data-connection="online"]').waitFor({ timeout: DEADLINE });
}

/** The roster entry whose display name starts with `name#`. */
export function entry(page, name) {
  return page.locator('#roster li', { has: page.locator('.name', { hasText: `${name}#` }) });
}

/** Waits until `page` lists exactly `n` players, all connected. */
export async function waitConnected(page, n) {
  await page.waitForFunction((n) => {
    const all = document.querySelectorAll('#roster li');
    const ok = document.querySelectorAll('#roster li[data-link="connected"]');
    return all.length === n && ok.length === n;
  }, n, { timeout: DEADLINE });
}

/** Sends a chat line, pressing Send again while the 2-per-second limit refuses it. */
export async function say(page, text) {
  await page.locator('#chat-input').fill(text);
  // The input empties when the line was accepted.
  await page.waitForFunction(() => {
    if (document.querySelector('#chat-input').value === '') return true;
    document.querySelector('#chat-send').click();
    return false;
  }, null, { timeout: DEADLINE, polling: 250 });
}

/** Waits for a chat line with exactly this text. */
export async function waitChat(page, text) {
  await page.waitForFunction((t) => [...document.querySelectorAll('#chat-log .text')]
    .some((e) => e.textContent === t), text, { timeout: DEADLINE });
}

export async function chatTexts(page) {
  return page.$$eval('#chat-log .text', (els) => els.map((e) => e.textContent));
}

export async function waitNotice(page, fragment) {
  await page.waitForFunction((f) => [...document.querySelectorAll('#notices .notice')]
    .some((e) => e.textContent.includes(f)), fragment, { timeout: DEADLINE });
}

/**
 * What a page shows and logged lately, for a failed test's output: the
 * visible screens, the match element's data attributes, status and result
 * lines, lobby notices, and the last `lines` console lines.
 */
export async function describePage(page, label, lines = 40) {
  const shown = await page.evaluate(() => {
    const text = (sel) => document.querySelector(sel)?.textContent ?? null;
    return {
      screens: [...document.querySelectorAll('main > section')].filter((e) => !e.hidden).map((e) => e.id),
      match: { ...(document.querySelector('#match')?.dataset ?? {}) },
      status: text('#match-status'),
      result: text('#result-text'),
      notices: [...document.querySelectorAll('#notices .notice')].map((n) => n.textContent).slice(-5),
    };
  }).catch((e) => ({ unavailable: String(e) }));
  return `--- ${label}: ${JSON.stringify(shown)}\n${(page.logs ?? []).slice(-lines).join('\n')}`;
}

// Starts the embedded server and Chromium before a test file's tests (when
// `enabled`) and, after them, closes both and checks that no page the file
// put in `pages` showed a dialog, threw an uncaught error or logged a
// console error. Returns { server, browser, pages }; the first two are
// set once the file's `before` hook ran.
export function serverAndBrowser(enabled) {
  const env = { server: null, browser: null, pages: [] };
  before(async () => {
    if (!enabled) return;
    env.server = await startServer();
    env.browser = await launchBrowser();
  });
  after(async () => {
    if (!enabled) return;
    // Close first: a failed assertion must not leave the browser running.
    await env.browser?.close();
    await env.server?.stop();
    for (const p of env.pages) {
      assert.deepEqual(p.dialogs, [], 'no page ever showed a dialog');
      assert.deepEqual(p.consoleErrors, [], 'no uncaught page errors');
      assert.deepEqual(unexpectedErrorLogs(p), [], 'no console errors');
    }
  });
  return env;
}

/**
 * Opens one page per name of `names` (each in its own browser context,
 * with `options` as for openPage), joins each to the lobby under its name
 * and waits until every page sees all the others connected. Adds the pages
 * to `env.pages` (serverAndBrowser's list) and returns them by name.
 */
export async function fillLobby(env, names, options = {}) {
  const pages = {};
  for (const name of names) {
    const p = await openPage(env.browser, env.server.url, options);
    env.pages.push(p);
    pages[name] = p;
    await joinLobby(p, name);
  }
  for (const name of names) await waitConnected(pages[name], names.length - 1);
  return pages;
}

/** The row of `name` in the party panel of `page` (the host's). */
export function partyPanelRow(page, name) {
  return page.locator('#party-panel li', { has: page.locator('.name', { hasText: `${name}#` }) });
}

/** The invitation to a party from `host` on `page`. */
export function partyPrompt(page, host) {
  return page.locator('#party-prompt .prompt', { has: page.locator('.name', { hasText: `${host}#` }) });
}

/** Every page of `pages` (by name) described, then the server's recent log. */
export async function describeAll(pages, server) {
  for (const [name, p] of Object.entries(pages)) console.log(await describePage(p, name));
  console.log(`--- signalling server, recent log:\n${server?.recentLog?.() ?? ''}`);
}

/**
 * `host` (a name of `pages`) invites `invited` (in this order) through the
 * party panel; with `short`, it picks the short match length first.
 * Returns once each invited page shows the invitation with the time left
 * to answer and the party's size.
 */
export async function inviteToParty(pages, host, invited, { short = false } = {}) {
  const h = pages[host];
  await h.locator('#party-panel button[data-action="party-open"]').click({ timeout: DEADLINE });
  await h.locator('#party-panel[data-party="picking"]').waitFor({ timeout: DEADLINE });
  for (const name of invited) {
    const pick = partyPanelRow(h, name).locator('button[data-action="party-pick"]');
    await pick.click({ timeout: DEADLINE });
    await partyPanelRow(h, name).locator('button[data-action="party-pick"][aria-pressed="true"]').waitFor({ timeout: DEADLINE });
  }
  if (short) {
    await h.locator('#party-panel button[data-action="party-length"]').click({ timeout: DEADLINE });
    await h.locator('#party-panel button[data-action="party-length"][data-length="1"]', { hasText: /^Short/ })
      .waitFor({ timeout: DEADLINE });
  }
  await h.locator('#party-panel button[data-action="party-start"]:not([disabled])').click({ timeout: DEADLINE });
  await h.locator('#party-panel[data-party="hosting"]').waitFor({ timeout: DEADLINE });
  for (const name of invited) {
    const prompt = partyPrompt(pages[name], host);
    await prompt.waitFor({ timeout: DEADLINE });
    assert.match(await prompt.locator('.time-left').textContent(), /^\d+ s left to answer$/);
    assert.match(await prompt.textContent(), new RegExp(`invites you to a party of ${invited.length + 1}`));
  }
}

/**
 * The invited pages answer `host`'s invitation: each name in `accept`
 * accepts, every other of `invited` declines. Returns the party's pages
 * (the host's first) once each runs the match; if one does not, describes
 * every page of `pages` and the server's log (`server`) before failing.
 */
export async function answerParty(pages, host, invited, accept, server) {
  // Declines first, so the start waits for the last acceptance.
  for (const name of invited.filter((n) => !accept.includes(n))) {
    await partyPrompt(pages[name], host).locator('button[data-action="party-decline"]').click();
    await partyPrompt(pages[name], host).waitFor({ state: 'detached', timeout: DEADLINE });
  }
  for (const name of accept) {
    await partyPrompt(pages[name], host).locator('button[data-action="party-accept"]').click();
  }
  const players = [host, ...accept];
  try {
    for (const name of players) {
      await pages[name].locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
    }
  } catch (e) {
    await describeAll(pages, server);
    throw e;
  }
  return players.map((n) => pages[n]);
}

/**
 * A deadline that moves with the match of `ps`: `expired()` is true once
 * the least `#match` tick among them has not advanced for `stuckMs`, or
 * after `capMs` in all. A loaded machine may run a match slower than real
 * time; only a match that stops is a failure. Every 15 s it logs each
 * page's tick, round trip and input delay.
 */
export function matchDeadline(ps, { stuckMs = 30_000, capMs = 600_000 } = {}) {
  const start = Date.now();
  let best = -1;
  let movedAt = start;
  let logAt = start;
  const read = (p) => p.locator('#match').evaluate((m) => ({
    tick: Number(m.dataset.tick ?? -1), ping: m.dataset.ping ?? '-', delay: m.dataset.delay ?? '-',
  }));
  return {
    async expired() {
      const st = await Promise.all(ps.map(read));
      const now = Date.now();
      const least = Math.min(...st.map((s) => s.tick));
      if (least > best) {
        best = least;
        movedAt = now;
      }
      if (now >= logAt) {
        logAt = now + 15_000;
        const each = st.map((s) => `${s.tick}/${s.ping}/${s.delay}`).join(' ');
        console.log(`after ${Math.round((now - start) / 1000)} s: ${each} (tick/ping ms/input delay)`);
      }
      return now - movedAt > stuckMs || now - start > capMs;
    },
  };
}

/** The line an NtBA page shows at the end of a match played to the buzzer. */
export const NTBA_RESULT = /^(Home|Away) wins \d+-\d+( on the tiebreak)?\.$/;

/**
 * The NtBA match of `ps` is over on every page: each shows the same result
 * (the final score), and their input logs agree at the last tick all of
 * them confirmed (each page stops at its own tick a moment after the
 * buzzer). Returns the result line.
 */
export async function assertEndedTogether(ps) {
  const texts = await Promise.all(ps.map((p) => p.locator('#result-text').textContent()));
  assert.match(texts[0], NTBA_RESULT);
  for (const t of texts) assert.equal(t, texts[0], 'every page shows the same final score');
  const ticks = await Promise.all(ps.map(async (p) => Number(await p.locator('#result').getAttribute('data-log-ticks'))));
  const last = Math.min(...ticks);
  const hashes = await Promise.all(ps.map((p) => p.evaluate(async (t) => (await import('/pkg/web_shell.js')).matchHashAt(t) ?? null, last)));
  assert.ok(/^[0-9a-f]{16}$/.test(hashes[0] ?? ''), `a hash at tick ${last}: ${hashes[0]}`);
  for (const h of hashes) assert.equal(h, hashes[0], `matchHashAt(${last}), the last tick every page confirmed`);
  console.log(`short match: ${texts[0]} · every page agrees at tick ${last} (${hashes[0]}) · logs ${ticks.join(', ')}`);
  return texts[0];
}

/**
 * While the court shows (local play, a match, a spectator's view, the
 * result), at the page's current viewport: once the shell has sized the
 * canvas's backing store to the layout, the canvas keeps 16:9 and fills
 * the court (its whole width, or its whole height), lies inside it and
 * inside the window; the court is the page's column (the window's width
 * but for the padding, down to the window's bottom) and nothing scrolls.
 * Returns the measures.
 */
export async function assertCourtFillsColumn(page) {
  const { width, height } = page.viewportSize();
  await page.waitForFunction(() => {
    const c = document.querySelector('#canvas');
    return c.clientWidth > 0 && c.width === Math.round(c.clientWidth * devicePixelRatio);
  }, null, { timeout: DEADLINE, polling: 100 });
  const m = await page.evaluate(() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return { l: r.left, t: r.top, w: r.width, h: r.height }; };
    const court = document.querySelector('#court');
    return { canvas: box(document.querySelector('#canvas')), court: box(court), vw: innerWidth, vh: innerHeight,
      scroll: document.scrollingElement.scrollHeight };
  });
  const { canvas: c, court } = m;
  const at = `${width}x${height}: ${JSON.stringify(m)}`;
  assert.ok(Math.abs(c.h - c.w * 9 / 16) <= 1, `16:9 at ${at}`);
  assert.ok(Math.abs(c.w - court.w) <= 1 || Math.abs(c.h - court.h) <= 1, `fills the court at ${at}`);
  assert.ok(c.l >= court.l - 0.5 && c.l + c.w <= court.l + court.w + 0.5 && c.t + c.h <= court.t + court.h + 0.5, `inside the court at ${at}`);
  assert.ok(c.l >= 0 && c.t >= 0 && c.l + c.w <= width && c.t + c.h <= height, `inside the window at ${at}`);
  assert.ok(court.w >= width - 40, `the court spans the window at ${at}`);
  assert.ok(court.t + court.h <= height && court.t + court.h >= height - 20, `the court reaches the bottom at ${at}`);
  assert.ok(m.scroll <= height, `nothing to scroll at ${at}`);
  return m;
}

/**
 * The README's pictures (docs/screens): where they go (SCREENS_DIR, by
 * default target/browser/screens; `scripts/ci/61-party.sh --screenshot`
 * points it at docs/screens) and the three window sizes each view is
 * taken at.
 */
export const SCREENS_DIR = process.env.SCREENS_DIR || path.join(ROOT, 'target/browser/screens');
export const SCREEN_SIZES = [[1280, 800], [1920, 1080], [390, 844]];

/**
 * `page` at each of SCREEN_SIZES in turn: `check(width, height)` (if any),
 * then its picture SCREENS_DIR/VIEW-WxH.png at device scale 1. Without
 * `court`, the picture is the page's column (down to its end or the
 * window's bottom); with it, the whole window. The page's own size is
 * given back afterwards.
 */
export async function shootAtEachSize(page, view, check, { court = false } = {}) {
  mkdirSync(SCREENS_DIR, { recursive: true });
  const was = page.viewportSize();
  for (const [width, height] of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    if (check) await check(width, height);
    const file = path.join(SCREENS_DIR, `${view}-${width}x${height}.png`);
    // Pulsing prompts stand still for the picture.
    const options = { path: file, animations: 'disabled' };
    if (!court) {
      const m = await page.locator('main').boundingBox();
      options.clip = { x: m.x, y: 0, width: m.width, height: Math.min(height, m.y + m.height) };
    }
    await page.screenshot(options);
  }
  if (was) await page.setViewportSize(was);
}

/**
 * The element `selector` names on `page` lies inside the `width`×`height`
 * window (nothing of it cut off). Measured in one go in the page: an
 * invitation is drawn anew as its time left counts down.
 */
export async function assertInWindow(page, selector, what, width, height) {
  const b = await page.evaluate((sel) => {
    const e = document.querySelector(sel);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  }, selector);
  assert.ok(b && b.width > 0 && b.x >= 0 && b.y >= 0 && b.x + b.width <= width && b.y + b.height <= height,
    `${what} inside the ${width}x${height} window: ${JSON.stringify(b)}`);
}

// Frame cost of the NtBA page in headless Chromium during local play
// against the CPU: serves the built page (default target/web) from a small
// static server on 127.0.0.1, clicks Local play, holds a changing set of keys
// for a while, and prints the frame rate and the time per frame (the shell's
// 60 Hz frame callback: simulation step, CPU, drawing, DOM updates), timed
// in the page around that callback.
//
//   WEB_CRATE=ntba-web scripts/build-web.sh
//   node games/ntba-web/bench/local_frames.mjs [WEB_DIR] [SECONDS]
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const { chromium } = require(path.join(ROOT, 'node_modules/playwright-core'));
const DIR = path.resolve(process.argv[2] || path.join(ROOT, 'target/web'));
const SECONDS = Number(process.argv[3] || 20);
const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/lib/chromium/chromium';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm' };

const server = createServer(async (req, res) => {
  const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
  const file = path.join(DIR, rel);
  if (!file.startsWith(DIR)) { res.writeHead(403).end(); return; }
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    res.end(body);
  } catch { res.writeHead(404).end(); }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
try {
  const page = await browser.newPage({ viewport: { width: 760, height: 700 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // Time the shell's frame callback (the 16 ms interval).
  await page.addInitScript(() => {
    const orig = window.setInterval;
    window.__frames = [];
    window.setInterval = function (fn, ms, ...rest) {
      if (ms === 16 && typeof fn === 'function') {
        const inner = fn;
        fn = function (...a) {
          const t = performance.now();
          inner.apply(this, a);
          window.__frames.push([t, performance.now() - t]);
        };
      }
      return orig.call(this, fn, ms, ...rest);
    };
  });
  await page.goto(url);
  await page.locator('#btn-local').click({ timeout: 30_000 });
  await page.locator('#canvas:not([hidden])').waitFor({ timeout: 30_000 });
  await page.evaluate(() => { window.__frames.length = 0; });
  // Play: run around with turbo, shoot now and then.
  const keys = ['ArrowRight', 'ArrowUp', 'ArrowLeft', 'ArrowDown'];
  const end = Date.now() + SECONDS * 1000;
  for (let i = 0; Date.now() < end; i++) {
    const k = keys[i % keys.length];
    await page.keyboard.down(k);
    await page.keyboard.down('ShiftLeft');
    if (i % 3 === 2) await page.keyboard.down('Space');
    await page.waitForTimeout(330);
    if (i % 3 === 2) await page.keyboard.up('Space');
    await page.keyboard.up('ShiftLeft');
    await page.keyboard.up(k);
  }
  const frames = await page.evaluate(() => window.__frames);
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  if (frames.length < 2) throw new Error('no frames timed');
  const costs = frames.map((f) => f[1]).sort((a, b) => a - b);
  const q = (p) => costs[Math.min(costs.length - 1, Math.floor(p * costs.length))];
  const span = (frames[frames.length - 1][0] - frames[0][0]) / 1000;
  console.log(`frames: ${frames.length} in ${span.toFixed(1)} s = ${((frames.length - 1) / span).toFixed(1)} per second`);
  console.log(`time per frame (ms): median ${q(0.5).toFixed(3)}, p95 ${q(0.95).toFixed(3)}, p99 ${q(0.99).toFixed(3)}, max ${costs[costs.length - 1].toFixed(3)}`);
} finally {
  await browser.close();
  server.close();
}

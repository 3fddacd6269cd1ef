// The game page in real headless Chromium, using the signalling Worker on the
// real Workers runtime (`wrangler dev`) from another origin, as in a
// deployment: the page is served by a plain static file server on one port and
// talks to the Worker on another, named by the page's config.js as a
// deployment does (docs/deploy.md), so every `fetch` to the Worker is a
// cross-origin request that needs the Worker's CORS answers.
//
// Run by scripts/ci/45-worker.sh, which starts wrangler with ALLOWED_ORIGINS
// set to the static server's origin and passes:
//   WORKER_URL   the Worker's base URL (http://127.0.0.1:<port>)
//   STATIC_PORT  the port to serve the built page on
//   WEB_DIR      the built page (scripts/build-web.sh)
//   CHROMIUM_BIN Debian's Chromium
// The browser helpers come from the web shell's own browser tests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  launchBrowser, openPage, joinLobby, entry, waitConnected, say, waitChat, DEADLINE, WEB_DIR,
} from '../../tests/browser/harness.mjs';

const WORKER_URL = process.env.WORKER_URL;
const STATIC_PORT = Number(process.env.STATIC_PORT);

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.png': 'image/png', '.json': 'application/json',
};

/** Serves WEB_DIR on 127.0.0.1:port; nothing but files. */
function serveStatic(port) {
  const root = path.resolve(WEB_DIR);
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    let file = path.resolve(root, '.' + decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    try {
      if ((await fs.stat(file)).isDirectory()) file = path.join(file, 'index.html');
      const body = await fs.readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

let staticServer;
let browser;
const pages = [];

before(async () => {
  assert.ok(WORKER_URL, 'set WORKER_URL');
  assert.ok(STATIC_PORT > 0, 'set STATIC_PORT');
  staticServer = await serveStatic(STATIC_PORT);
  browser = await launchBrowser();
});

after(async () => {
  for (const p of pages) {
    assert.deepEqual(p.dialogs, [], 'no page ever showed a dialog');
    assert.deepEqual(p.consoleErrors, [], 'no uncaught page errors');
  }
  await browser?.close();
  await new Promise((resolve) => (staticServer ? staticServer.close(resolve) : resolve()));
});

const pageUrl = (host) => `http://${host}:${STATIC_PORT}/`;
const asDeployed = { signalingUrl: WORKER_URL };

test('two players meet in the Worker\'s lobby, chat, and play a match through a Worker room', async () => {
  const ada = await openPage(browser, pageUrl('127.0.0.1'), asDeployed);
  const dana = await openPage(browser, pageUrl('127.0.0.1'), asDeployed);
  pages.push(ada, dana);
  await joinLobby(ada, 'Ada');
  await joinLobby(dana, 'דנה');
  // The lobby socket, the roster and the WebRTC handshakes relayed by the
  // Lobby Durable Object: each sees the other, connected peer to peer.
  await waitConnected(ada, 1);
  await waitConnected(dana, 1);
  await say(ada, 'hello through the Worker');
  await waitChat(dana, 'hello through the Worker');

  // A challenge creates a room with a cross-origin POST /rooms, then both
  // players meet in that room's Durable Object and open the match channels.
  await entry(ada, 'דנה').locator('button[data-action="challenge"]').click();
  const accept = entry(dana, 'Ada').locator('button[data-action="accept"]');
  await accept.waitFor({ timeout: DEADLINE });
  await accept.click();
  for (const p of [ada, dana]) {
    await p.waitForFunction(() => Number(document.querySelector('#match').dataset.tick || 0) > 60, null,
      { timeout: DEADLINE });
  }
  assert.equal(await ada.locator('#match').getAttribute('data-side'), '0');
  assert.equal(await dana.locator('#match').getAttribute('data-side'), '1');
});

test('a page from an origin the Worker does not allow cannot reach the lobby', async () => {
  // Same files, but the page's origin is http://localhost:<port>, which is
  // not in ALLOWED_ORIGINS: the Worker answers 403 and the page says so.
  const stranger = await openPage(browser, pageUrl('localhost'), asDeployed);
  await stranger.locator('#btn-online').click({ timeout: DEADLINE });
  await stranger.locator('#name').fill('Stranger');
  await stranger.locator('#join').click();
  await stranger.locator('#banner-text', { hasText: "Can't reach the lobby" }).waitFor({ timeout: DEADLINE });
  assert.notEqual(await stranger.locator('#lobby').getAttribute('data-connection'), 'online');
  await stranger.context().close();
});

// Prints timing figures of the web shell in headless Chromium over loopback
// (no pass/fail): joining the lobby, forming the mesh for 2, 4 and 8 players,
// and accept-to-running for a match. Run through scripts/bench-web.sh.
// Times are wall-clock in Node around DOM conditions polled every animation
// frame, so each includes up to ~16 ms of polling slack.
import {
  startServer, launchBrowser, openPage, joinLobby, entry, DEADLINE,
} from './harness.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const server = await startServer();
const browser = await launchBrowser();
const rows = [];

async function connectedAll(pages, n) {
  await Promise.all(pages.map((p) => p.waitForFunction((n) =>
    document.querySelectorAll('#roster li[data-link="connected"]').length === n, n, { timeout: DEADLINE })));
}

for (const n of [2, 4, 8]) {
  const joins = [];
  const meshes = [];
  for (let round = 0; round < 3; round++) {
    const pages = [];
    for (let i = 0; i < n; i++) pages.push(await openPage(browser, server.url));
    const t0 = Date.now();
    await Promise.all(pages.map(async (p, i) => {
      const s = Date.now();
      await joinLobby(p, `P${i}`);
      joins.push(Date.now() - s);
    }));
    await connectedAll(pages, n - 1);
    meshes.push(Date.now() - t0);
    await Promise.all(pages.map((p) => p.context().close()));
  }
  rows.push([`lobby join (Online click, name, Join, to welcome), ${n} joining at once`, median(joins)]);
  rows.push([`full mesh of ${n} players (${n * (n - 1) / 2} peer connection${n === 2 ? "" : "s"}), from the joins`, median(meshes)]);
}

const accepts = [];
const pings = [];
for (let round = 0; round < 3; round++) {
  const a = await openPage(browser, server.url);
  const b = await openPage(browser, server.url);
  await joinLobby(a, 'Host');
  await joinLobby(b, 'Guest');
  await connectedAll([a, b], 1);
  await entry(a, 'Guest').locator('button[data-action="challenge"]').click();
  const accept = entry(b, 'Host').locator('button[data-action="accept"]');
  await accept.waitFor({ timeout: DEADLINE });
  const t0 = Date.now();
  await accept.click();
  await Promise.all([a, b].map((p) => p.waitForFunction(() =>
    Number(document.querySelector('#match').dataset.tick || 0) >= 1, null, { timeout: DEADLINE })));
  accepts.push(Date.now() - t0);
  await a.waitForFunction(() => /ping \d+ ms/.test(document.querySelector('#match-status').textContent),
    null, { timeout: DEADLINE });
  pings.push(Number(/ping (\d+) ms/.exec(await a.locator('#match-status').textContent())[1]));
  await a.context().close();
  await b.context().close();
}
rows.push(['accept click to both pages simulating (room, offer/answer, ICE, Hellos)', median(accepts)]);
rows.push(['lock-step round trip reported by the session (ping), loopback', median(pings)]);

console.log('| measurement (median of 3) | ms |');
console.log('| --- | ---: |');
for (const [what, ms] of rows) console.log(`| ${what} | ${ms} |`);
await browser.close();
await server.stop();

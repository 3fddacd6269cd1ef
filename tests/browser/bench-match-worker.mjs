// Prints what running the online match in a dedicated worker costs and
// saves (no pass/fail), with the NtBA page in headless Chromium over
// loopback: the time the page's main thread spends per frame, and the
// round trip the session measures between the two pages, each with the
// match in the worker (the default) and on the page (?match-worker=off),
// alternating in one browser. Run through scripts/bench-match-worker.sh.
//
// The worker hop: the session's ping crosses four page<->worker hops more
// with the worker (each side's ping out and its answer in, on both pages),
// so half the difference of the median pings is one page -> worker -> page
// round trip of a datagram.
import { startServer, launchBrowser, openPage, joinLobby, entry, DEADLINE } from './harness.mjs';

const ROUNDS = 3;
const SAMPLE_MS = 8_000;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const server = await startServer();
const browser = await launchBrowser();
const figures = { worker: { frame: [], p95: [], ping: [] }, page: { frame: [], p95: [], ping: [] } };

for (let round = 0; round < ROUNDS; round++) {
  for (const mode of ['page', 'worker']) {
    const q = mode === 'page' ? '?match-worker=off' : '';
    const a = await openPage(browser, server.url + q);
    const b = await openPage(browser, server.url + q);
    await joinLobby(a, 'Host');
    await joinLobby(b, 'Guest');
    await entry(a, 'Guest').locator('button[data-action="challenge"]').click({ timeout: DEADLINE });
    await entry(b, 'Host').locator('button[data-action="accept"]').click({ timeout: DEADLINE });
    for (const p of [a, b]) {
      await p.waitForFunction(() => Number(document.querySelector('#match').dataset.tick || 0) >= 120, null, { timeout: DEADLINE });
    }
    // The pings of SAMPLE_MS, one sample every 100 ms (the page shows the
    // newest), then each page's frame times of the whole match so far.
    const pings = [];
    for (const until = Date.now() + SAMPLE_MS; Date.now() < until;) {
      const ping = Number(await a.locator('#match').getAttribute('data-ping'));
      if (Number.isFinite(ping) && ping > 0) pings.push(ping);
      await a.waitForTimeout(100); // the sampling period
    }
    for (const p of [a, b]) {
      const [, mean, , p95] = (await p.locator('#match').getAttribute('data-frame-ms')).split(' ').map(Number);
      figures[mode].frame.push(mean);
      figures[mode].p95.push(p95);
    }
    figures[mode].ping.push(median(pings));
    await a.context().close();
    await b.context().close();
  }
}

const row = (what, f) => console.log(`| ${what} | ${f('page')} | ${f('worker')} |`);
const ms = (x) => x.toFixed(3);
console.log(`| NtBA online, headless Chromium, loopback (median over ${ROUNDS} matches x 2 pages) | match on the page | match in the worker |`);
console.log('| --- | ---: | ---: |');
row('main thread per frame, mean (ms)', (m) => ms(median(figures[m].frame)));
row('main thread per frame, p95 (ms)', (m) => ms(median(figures[m].p95)));
row('session ping between the pages (ms, median of the samples)', (m) => String(median(figures[m].ping)));
const hop = (median(figures.worker.ping) - median(figures.page.ping)) / 2;
console.log(`\nratio of the main thread's mean frame time, worker / page: ${(median(figures.worker.frame) / median(figures.page.frame)).toFixed(2)}`);
console.log(`one page -> worker -> page round trip, from the pings: ${hop.toFixed(1)} ms`);
await browser.close();
await server.stop();

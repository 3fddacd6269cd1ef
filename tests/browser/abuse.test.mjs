// Abuse of a real page, in headless Chromium against the embedded signalling
// server (stage 50 runs this file after the lobby scenarios):
//   A. a raw lobby client whose id sorts first (so it is the offering side to
//      everyone) floods a page with repeated offers: the page answers each
//      attempt once and builds one peer connection per attempt, the service
//      closes the flooder with 1008 for its own rate, and the page stays
//      welcomed and goes on chatting and challenging;
//   B. a page that plays the handshake and then keeps the match link alive
//      with Pings but never sends an input (`?peer_fault=no_inputs`): the
//      other page holds its slot as for a silent player, counts down, and
//      ends with "The other player left and did not come back.";
//   C. a page that sends only Pings on the match link, so its Hello never
//      arrives (`?peer_fault=pings`, which also makes that page wait 120 s
//      for its own handshake, as a hostile page would): the other page
//      gives the handshake up after its 10 s with "Couldn't start the
//      match: the connection to the other player is too poor.", its Bye
//      makes the faulty page say the same, and no tick is played.
//   D. (on the NtBA page, in stage 61: the only game with parties) a party
//      of three where one page keeps its links alive but sends no input
//      (`?peer_fault=no_inputs`): as in B, the other two pages hold its
//      slot as for a silent player (the CPU playing her place meanwhile),
//      and when the window runs out they say
//      "The other player left and did not come back."; the faulty page's
//      match ends too, and every page goes back to the lobby, free to be
//      challenged.
// The flooder is a script in a Chromium page of its own (an idle page on
// the service's origin, a WebSocket to /lobby/ws, an offer made by a real
// RTCPeerConnection), so the page under attack gets offers it can really
// answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowser, openPage, joinLobby, entry, waitConnected, say, waitChat, waitNotice,
  describePage, inviteToParty, partyPrompt, DEADLINE,
} from './harness.mjs';

const env = serverAndBrowser(true);

// Exactly 12 characters of A-Z a-z 0-9, and below every id a page draws
// from that alphabet in byte order, so the flooder offers to everyone.
const FLOODER = '000000000000';

// Runs in the attacked page before its own scripts: counts the answers it
// sends the flooder (per attempt), the peer connections it builds, and the
// SDP steps still in flight.
function watchAnswers(flooder) {
  window.abuse = { answers: {}, peerConnections: 0, pending: 0 };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    try {
      const m = JSON.parse(data);
      if (m.type === 'signal' && m.to === flooder && m.data?.type === 'answer') {
        const a = String(m.data.attempt);
        window.abuse.answers[a] = (window.abuse.answers[a] ?? 0) + 1;
      }
    } catch { /* not JSON: not a signal */ }
    return send.call(this, data);
  };
  const Pc = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends Pc {
    constructor(...args) {
      super(...args);
      window.abuse.peerConnections += 1;
    }
  };
  for (const step of ['setRemoteDescription', 'createAnswer', 'setLocalDescription']) {
    const real = Pc.prototype[step];
    Pc.prototype[step] = function (...args) {
      window.abuse.pending += 1;
      const p = real.apply(this, args);
      const done = () => { window.abuse.pending -= 1; };
      p.then(done, done);
      return p;
    };
  }
}

test('A. an offer flood: one answer per attempt, the flooder closed, the page still in the lobby', { timeout: 120_000 }, async () => {
  const { server, browser, pages } = env;
  const bo = await openPage(browser, server.url, { initScript: `(${watchAnswers})(${JSON.stringify(FLOODER)})` });
  const cy = await openPage(browser, server.url);
  pages.push(bo, cy);
  await joinLobby(bo, 'Bo');
  await joinLobby(cy, 'Cy');
  await waitConnected(bo, 1);
  await waitConnected(cy, 1);
  const baseline = await bo.evaluate(() => window.abuse.peerConnections);

  // The flooder: a plain script on the service's origin.
  // The game page on the service's origin, left on its title screen (it
  // never joins the lobby): its Content-Security-Policy lets a script
  // connect to the service, which a page of another origin or address
  // space could not.
  const floodContext = await browser.newContext();
  const flood = await floodContext.newPage();
  await flood.goto(server.url);
  const wsUrl = `${server.url.replace(/^http/, 'ws')}/lobby/ws`;
  const boId = await flood.evaluate(async ({ wsUrl, id }) => {
    window.stage = 'offer';
    const pc = new RTCPeerConnection();
    pc.createDataChannel('flood');
    const { sdp } = await pc.createOffer();
    const f = { answers: {}, closed: null, sent: 0, sdp, ws: new WebSocket(wsUrl) };
    window.f = f;
    f.send = (m) => { f.ws.send(JSON.stringify(m)); f.sent += 1; };
    const seen = [];
    const welcome = await new Promise((resolve, reject) => {
      setTimeout(() => reject(new Error(`no welcome: ${JSON.stringify(seen)}`)), 20_000);
      f.ws.onopen = () => f.send({ type: 'hello', id, nick: 'Flood' });
      f.ws.onclose = (e) => { f.closed = e.code; reject(new Error(`closed ${e.code}`)); };
      f.ws.onmessage = (e) => {
        const m = JSON.parse(e.data);
        seen.push(m.type);
        if (m.type === 'welcome') resolve(m);
        if (m.type === 'signal' && m.data?.type === 'answer') {
          const a = String(m.data.attempt);
          f.answers[a] = (f.answers[a] ?? 0) + 1;
        }
      };
    });
    f.ws.onclose = (e) => { f.closed = e.code; };
    return welcome.roster.find((p) => p.nick === 'Bo').id;
  }, { wsUrl, id: FLOODER });

  const offers = (attempts, copies) => flood.evaluate(({ to, attempts, copies }) => {
    for (let i = 0; i < copies; i += 1) {
      const attempt = attempts[i % attempts.length];
      window.f.send({ type: 'signal', to, data: { type: 'offer', attempt, sdp: window.f.sdp } });
    }
  }, { to: boId, attempts, copies });
  const answered = (attempt) => flood.waitForFunction(
    (a) => (window.f.answers[a] ?? 0) >= 1, String(attempt), { timeout: DEADLINE });

  try {
    // Attempt 1, answered; 250 copies of it; attempt 2 (the retry),
    // answered; 250 copies of both. 503 messages with the hello: within
    // the service's 600 a minute, so all of them reach the page.
    await offers([1], 1);
    await answered(1);
    await offers([1], 250);
    await offers([2], 1);
    await answered(2);
    await offers([1, 2], 250);
    // A status change after the offers: once the page shows it, the page
    // has read every offer before it (one socket, in order).
    await flood.evaluate(() => window.f.send({ type: 'status', status: 'in-match' }));
    await bo.locator('#roster li[data-status="in a match"]', { has: bo.locator('.name', { hasText: 'Flood#' }) })
      .waitFor({ timeout: DEADLINE });
    await bo.waitForFunction(() => window.abuse.pending === 0, null, { timeout: DEADLINE });
  } catch (e) {
    console.log(await describePage(bo, 'Bo'));
    console.log(`--- signalling server, recent log:\n${server.recentLog()}`);
    throw e;
  }
  const sentByPage = await bo.evaluate(() => window.abuse.answers);
  assert.deepEqual(sentByPage, { 1: 1, 2: 1 }, 'the page answered each attempt once');
  assert.equal(await bo.evaluate(() => window.abuse.peerConnections) - baseline, 2,
    'one peer connection per attempt, none for the copies');
  assert.deepEqual(await flood.evaluate(() => window.f.answers), { 1: 1, 2: 1 },
    'the flooder got one answer per attempt');

  // The flood goes on past the service's rate: the flooder is closed.
  const before = await flood.evaluate(() => window.f.sent);
  await offers([1, 2], 200);
  await flood.waitForFunction(() => window.f.closed !== null, null, { timeout: DEADLINE });
  assert.equal(await flood.evaluate(() => window.f.closed), 1008, 'the service closed the flooder');
  assert.ok(before < 600, `the flooder was still within its rate after the first ${before} messages`);

  // The page was not closed: it is online, the flooder left its roster,
  // a newcomer's welcome lists it, and it chats and challenges.
  await entry(bo, 'Flood').waitFor({ state: 'detached', timeout: DEADLINE });
  assert.equal(await bo.locator('#lobby').getAttribute('data-connection'), 'online');
  const roster = await flood.evaluate(async (wsUrl) => {
    const ws = new WebSocket(wsUrl);
    const welcome = await new Promise((resolve, reject) => {
      ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', id: 'probe0000001', nick: 'Probe' }));
      ws.onmessage = (e) => { const m = JSON.parse(e.data); if (m.type === 'welcome') resolve(m); };
      ws.onclose = (e) => reject(new Error(`probe closed ${e.code}`));
    });
    ws.onclose = null;
    ws.close();
    return welcome.roster.map((p) => p.nick).sort();
  }, wsUrl);
  assert.deepEqual(roster, ['Bo', 'Cy', 'Probe'], 'the service still holds the page on its roster');
  await say(bo, 'still here');
  await waitChat(cy, 'still here');
  await entry(bo, 'Cy').locator('button[data-action="challenge"]').click();
  const decline = entry(cy, 'Bo').locator('button[data-action="decline"]');
  await decline.waitFor({ timeout: DEADLINE });
  await decline.click();
  await waitNotice(bo, 'declined your challenge');
  await floodContext.close();
  for (const p of [bo, cy]) await p.context().close();
});

/** `a` challenges `b`, `b` accepts; returns when `b` clicked Accept. */
async function challenge(a, b, aName, bName) {
  const button = entry(a, bName).locator('button[data-action="challenge"]');
  await button.waitFor({ timeout: DEADLINE });
  await button.click();
  const accept = entry(b, aName).locator('button[data-action="accept"]');
  await accept.waitFor({ timeout: DEADLINE });
  await accept.click();
}

test('B. a peer that pings but sends no inputs: its slot is held, then the match ends', { timeout: 120_000 }, async () => {
  const { server, browser, pages } = env;
  const dee = await openPage(browser, server.url);
  const eve = await openPage(browser, `${server.url}/?peer_fault=no_inputs`);
  pages.push(dee, eve);
  await joinLobby(dee, 'Dee');
  await joinLobby(eve, 'Eve');
  await waitConnected(dee, 1);
  await challenge(dee, eve, 'Dee', 'Eve');
  try {
    await dee.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
    const started = Date.now();
    // Heard, but no input: after the silence timeout (5 s) of stalling the
    // slot is held as for a silent player, then the window (20 s) runs out.
    await dee.locator('#match-waiting', { hasText: /^Eve is reconnecting \(\d+ s\)$/ }).waitFor({ timeout: DEADLINE });
    await dee.locator('#result-text', { hasText: /^The other player left and did not come back\.$/ })
      .waitFor({ timeout: DEADLINE + 20_000 });
    const waited = Date.now() - started;
    assert.ok(waited >= 20_000 && waited < 45_000, `ended ${waited} ms after the start`);
    console.log(`a peer with no inputs: the match ended ${waited} ms after it started`);
  } catch (e) {
    console.log(await describePage(dee, 'Dee'));
    console.log(await describePage(eve, 'Eve'));
    throw e;
  }
  for (const p of [dee, eve]) await p.context().close();
});

test('C. a peer that only pings never finishes the handshake: the match does not start', { timeout: 120_000 }, async () => {
  const { server, browser, pages } = env;
  const fay = await openPage(browser, server.url);
  const gus = await openPage(browser, `${server.url}/?peer_fault=pings`);
  pages.push(fay, gus);
  await joinLobby(fay, 'Fay');
  await joinLobby(gus, 'Gus');
  await waitConnected(fay, 1);
  await challenge(fay, gus, 'Fay', 'Gus');
  const accepted = Date.now();
  const message = "Couldn't start the match: the connection to the other player is too poor.";
  const ended = (p) => p.locator('#result-text').filter({ hasText: /\S/ }).waitFor({ timeout: DEADLINE });
  try {
    await Promise.all([ended(fay), ended(gus)]);
  } catch (e) {
    console.log(await describePage(fay, 'Fay'));
    console.log(await describePage(gus, 'Gus'));
    throw e;
  }
  const waited = Date.now() - accepted;
  // Fay's handshake deadline (10 s) ends it: Gus's faulty page waits far
  // longer, as a hostile page would. Fay says why, and her page's Bye
  // tells Gus the same before her page closes the link.
  assert.equal(await fay.locator('#result-text').textContent(), message, 'the page whose deadline ran out');
  assert.equal(await gus.locator('#result-text').textContent(), message, "the faulty page, told by the other's Bye");
  for (const p of [fay, gus]) {
    assert.equal(await p.locator('#match').getAttribute('data-stats'),
      'frames 0 stalled 0 skipped 0 rollbacks 0 resimulated 0 max_rollback 0', 'no tick was played');
  }
  // The deadline counts on the page's 100 ms timer from the handshake's
  // start, and this clock starts once the test saw its click on Accept go
  // through: a little under 10 s is possible, far under is not.
  assert.ok(waited >= 9_000 && waited < 25_000, `ended ${waited} ms after Accept`);
  console.log(`a peer that only pings: the handshake was given up ${waited} ms after Accept`);
  for (const p of [fay, gus]) await p.context().close();
});

test('D. a party member that sends no inputs: its slot is held, then the match ends', { skip: process.env.NTBA_PARTY !== '1', timeout: 180_000 }, async () => {
  const { server, browser, pages } = env;
  const ada = await openPage(browser, server.url);
  const bo = await openPage(browser, server.url);
  const eve = await openPage(browser, `${server.url}/?peer_fault=no_inputs`);
  pages.push(ada, bo, eve);
  const all = [['Ada', ada], ['Bo', bo], ['Eve', eve]];
  const byName = { Ada: ada, Bo: bo, Eve: eve };
  for (const [name, page] of all) await joinLobby(page, name);
  for (const [, page] of all) await waitConnected(page, 2);
  const gone = 'The other player left and did not come back.';
  let started;
  try {
    await inviteToParty(byName, 'Ada', ['Bo', 'Eve']);
    for (const page of [bo, eve]) {
      await partyPrompt(page, 'Ada').locator('button[data-action="party-accept"]').click({ timeout: DEADLINE });
    }
    await ada.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
    started = Date.now();
    for (const page of [bo, eve]) await page.locator('#match[data-state="running"]').waitFor({ timeout: DEADLINE });
    // What Ada's page says while it waits, for the log.
    await ada.evaluate(() => {
      window.__lines = [];
      const el = document.querySelector('#match-waiting');
      new MutationObserver(() => { if (!el.hidden) window.__lines.push(el.textContent); })
        .observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
    });
    for (const page of [ada, bo]) {
      await page.locator('#result-text', { hasText: /\S/ }).waitFor({ timeout: DEADLINE + 20_000 });
    }
    await eve.locator('#result-text', { hasText: /\S/ }).waitFor({ timeout: DEADLINE });
  } catch (e) {
    for (const [name, page] of all) console.log(await describePage(page, name));
    console.log(`--- signalling server, recent log:\n${server.recentLog()}`);
    throw e;
  }
  const waited = Date.now() - started;
  const said = {};
  for (const [name, page] of all) said[name] = await page.locator('#result-text').textContent();
  const lines = [...new Set(await ada.evaluate(() => window.__lines))];
  console.log(`a party member with no inputs: ${JSON.stringify(said)} after ${waited} ms; Ada's page said meanwhile: ${JSON.stringify(lines.slice(0, 8))}`);
  assert.equal(said.Ada, gone, 'the host says the player did not come back');
  assert.equal(said.Bo, gone, 'the other player says the same');
  // Stalled from its first tick without Eve's inputs (a party plays in
  // lock-step), the slot is held after the 5 s silence timeout; Eve's
  // page, no longer spoken to, comes back once with a fresh session that
  // sends no inputs either, and the match ends when the window runs out.
  assert.ok(waited >= 20_000 && waited < 60_000, `ended ${waited} ms after the start`);
  // Ended cleanly: Ada goes back to the lobby, the others follow her there
  // (no rematch without her), and all three show free (a Challenge button
  // next to each of the others).
  await ada.locator('#continue').click({ timeout: DEADLINE });
  for (const [, page] of all) await page.locator('#lobby:not([hidden])').waitFor({ timeout: DEADLINE });
  for (const [name, page] of all) {
    for (const [other] of all.filter(([n]) => n !== name)) {
      await entry(page, other).locator('button[data-action="challenge"]').waitFor({ timeout: DEADLINE });
    }
  }
  for (const [, page] of all) await page.context().close();
});

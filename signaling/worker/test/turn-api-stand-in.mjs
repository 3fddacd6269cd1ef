// A local stand-in for Cloudflare's Realtime TURN API, the one endpoint the
// Worker calls: POST {base}/v1/turn/keys/{key id}/credentials/generate-ice-servers
// with `Authorization: Bearer {token}` and a JSON body {"ttl": seconds}.
//
// CI has no network beyond package registries, so scripts/ci/45-worker.sh
// points the Worker's TURN_API_BASE at this server (plain http on loopback,
// the one non-https origin the Worker accepts) to run the whole /ice path in
// the real Workers runtime. Node's standard library only.
//
// It records every request it receives and answers according to `mode`:
//   'ok'      checks the request as the real API would (method, path with the
//             key id, bearer token, JSON content type, a whole-number ttl) and
//             answers 201 with the documented body: a STUN entry, then a TURN
//             entry with fresh random credentials and the usual URLs
//             (including the port-53 ones the Worker must drop). A request
//             that fails a check gets 400/401/404/405 with a JSON error.
//   'error'   answers 500 with a JSON error body that quotes the token (so a
//             Worker that logged the answer would leak it);
//   'garbage' answers 201 with a body that is not JSON (again quoting it);
//   'hang'    reads the request and never answers; `closed` then tells
//             whether the caller gave up and closed the connection;
//   'stall'   answers 201 and the first bytes of a body, then nothing more.
import http from 'node:http';
import { randomBytes } from 'node:crypto';

/** The TURN URLs the stand-in hands out, as the real API lists them. */
export const MINTED_URLS = [
  'turn:turn.example.test:3478?transport=udp',
  'turn:turn.example.test:53?transport=udp',
  'turn:turn.example.test:3478?transport=tcp',
  'turns:turn.example.test:5349?transport=tcp',
];

/** The same, without the port-53 entries the Worker leaves out. */
export const USABLE_URLS = MINTED_URLS.filter((u) => !u.includes(':53?'));

/**
 * Starts the stand-in on 127.0.0.1:port for this key id and token.
 * Returns { requests, minted, setMode(mode), close() }: `requests` lists
 * { method, path, authorization, contentType, body, answered, closed } in
 * arrival order (`answered`: a whole answer was sent; `closed`: the
 * connection has gone); `minted` lists the { username, credential } pairs handed out.
 */
export async function startStandIn({ port, keyId, token }) {
  const requests = [];
  const minted = [];
  const sockets = new Set();
  let mode = 'ok';

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method,
        path: req.url,
        authorization: req.headers.authorization ?? null,
        contentType: req.headers['content-type'] ?? null,
        body: Buffer.concat(chunks).toString('utf8'),
        answered: false,
        closed: false,
      };
      requests.push(seen);
      res.on('close', () => { seen.closed = true; });
      const answer = (status, body, type = 'application/json') => {
        seen.answered = true;
        res.writeHead(status, { 'Content-Type': type }).end(body);
      };
      if (mode === 'hang') return;
      if (mode === 'stall') {
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.write('{"iceServers":[');
        return;
      }
      if (mode === 'error') {
        answer(500, JSON.stringify({ success: false, errors: [{ message: `internal error for ${token}` }] }));
        return;
      }
      if (mode === 'garbage') {
        answer(201, `<html>not json, ${token}`, 'text/html');
        return;
      }
      const problem = check(seen, keyId, token);
      if (problem) {
        answer(problem.status, JSON.stringify({ success: false, errors: [{ message: problem.message }] }));
        return;
      }
      const pair = {
        username: randomBytes(16).toString('hex'),
        credential: randomBytes(24).toString('base64url'),
      };
      minted.push(pair);
      answer(201, JSON.stringify({
        iceServers: [
          { urls: ['stun:stun.example.test:3478', 'stun:stun.example.test:53'] },
          { urls: MINTED_URLS, ...pair },
        ],
      }));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });

  return {
    requests,
    minted,
    setMode(m) {
      if (!['ok', 'error', 'garbage', 'hang', 'stall'].includes(m)) throw new Error(`unknown mode ${m}`);
      mode = m;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What the real API would refuse in this request, or null. */
function check(seen, keyId, token) {
  const expectedPath = `/v1/turn/keys/${keyId}/credentials/generate-ice-servers`;
  if (seen.path !== expectedPath) return { status: 404, message: 'no such key' };
  if (seen.method !== 'POST') return { status: 405, message: 'method not allowed' };
  if (seen.authorization !== `Bearer ${token}`) return { status: 401, message: 'bad token' };
  if (!/^application\/json\b/.test(seen.contentType ?? '')) return { status: 400, message: 'not JSON' };
  let body;
  try {
    body = JSON.parse(seen.body);
  } catch {
    return { status: 400, message: 'body is not JSON' };
  }
  if (!Number.isInteger(body?.ttl) || body.ttl <= 0) return { status: 400, message: 'bad ttl' };
  return null;
}

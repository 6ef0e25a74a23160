#!/usr/bin/env node
// The swarm stage's load tool. Runs INSIDE a client container on the stack's `edge` network
// and sends a steady mix through the gateway until a stop file appears: API reads, writes
// (blog posts, each with a slug of its own), uploads, token refreshes and code flows, from
// WORKERS workers, each a registered client with its own grant of one of the demo accounts.
// Every request goes into a ledger (one JSON line each, --out): what was sent, when, the answer
// or the lack of one; the stage compares it with the database afterwards (tools/swarm/ledger.mjs).
//
//   node load.mjs --origin=http://gateway:3000 --run=r1 --out=/out/kill.jsonl --stop=/out/kill.stop
//        [--workers=6] [--rate=4] [--mix=read:50,write:30,upload:5,refresh:10,code:5] [--max-seconds=900]
//        [--connections=mixed|fresh|kept]   a connection per request, or kept alive (mixed: half the workers)
//
// After the stop: every upload answered 201 is fetched back and compared, and each worker's last
// tokens are used once more (its access token on the API, its refresh token at the token
// endpoint): the ledger says whether what the platform answered still holds. Prints a summary
// as one JSON line.
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { sleep } from './http.mjs';
import { ACCOUNTS, kidOf, OAuthClient } from './oauth.mjs';

const SCOPE = 'openid profile posts:read posts:write storage:write';
/** Token requests per grant are limited (RATE_LIMIT_TOKEN_PER_GRANT, 60 a minute): a refresh at most this often per worker. */
const REFRESH_EVERY_MS = 2_000;

/** @param {string} name @param {string} fallback */
const option = (name, fallback) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const ORIGIN = option('origin', 'http://gateway:3000');
const RUN = option('run', `run${Date.now()}`);
const OUT = option('out', '/out/load.jsonl');
const STOP = option('stop', '/out/load.stop');
const WORKERS = Number(option('workers', '6'));
const RATE = Number(option('rate', '4'));
const MAX_SECONDS = Number(option('max-seconds', '900'));
/**
 * How workers connect to the gateway: `fresh` (a connection per request), `kept` (connections
 * kept alive and used again, as most API clients do), or `mixed` (even workers keep theirs).
 */
const CONNECTIONS = option('connections', 'mixed');
if (!['fresh', 'kept', 'mixed'].includes(CONNECTIONS)) throw new Error('--connections=fresh|kept|mixed');
/** @param {number} worker */
const keepsAlive = (worker) => CONNECTIONS === 'kept' || (CONNECTIONS === 'mixed' && worker % 2 === 0);
const MIX = Object.fromEntries(
  option('mix', 'read:50,write:30,upload:5,refresh:10,code:5')
    .split(',')
    .map((part) => part.split(':'))
    .map(([name, weight]) => [String(name), Number(weight)]),
);

/** @type {Record<string, unknown>[]} */
const ledger = [];
/** Each worker's latest ledger entry (workers run side by side: the ledger's last is anyone's). */
/** @type {Map<number, Record<string, unknown>>} */
const latest = new Map();
let sequence = 0;
const deadline = Date.now() + MAX_SECONDS * 1000;
const stopped = () => existsSync(STOP) || Date.now() > deadline;

/**
 * @param {number} worker
 * @returns {import('./oauth.mjs').Recorder}
 */
const recorderFor = (worker) => (action, method, path, answer, extra = {}) => {
  const entry = {
    i: sequence++,
    worker,
    keptAlive: keepsAlive(worker),
    action,
    method,
    path: path.split('?')[0],
    status: answer.status,
    started: answer.started,
    ended: answer.ended,
    address: answer.address,
    ...(answer.error ? { error: answer.error } : {}),
    ...(answer.status >= 400 ? { answer: answer.text.slice(0, 300) } : {}),
    ...extra,
  };
  ledger.push(entry);
  latest.set(worker, entry);
};

/** @param {Record<string, number>} mix */
function picker(mix) {
  const entries = Object.entries(mix).filter(([, weight]) => weight > 0);
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  return () => {
    let roll = Math.random() * total;
    for (const [name, weight] of entries) {
      roll -= weight;
      if (roll < 0) return name;
    }
    return /** @type {string} */ (entries[entries.length - 1]?.[0]);
  };
}

/** @param {number} index */
async function worker(index) {
  const client = new OAuthClient(ORIGIN, recorderFor(index), keepsAlive(index));
  const account = /** @type {{ email: string, password: string }} */ (ACCOUNTS[index % ACCOUNTS.length]);
  const pick = picker(MIX);
  /** @type {import('./oauth.mjs').Registered | undefined} */
  let registered;
  /** @type {import('./oauth.mjs').Tokens | undefined} */
  let tokens;
  let lastRefresh = 0;
  let writes = 0;
  /** @type {{ path: string, sha256: string }[]} */
  const uploads = [];

  /** A grant of its own: registration, then the code flow (until both worked, or the stop). */
  async function signIn() {
    while (!stopped()) {
      if (!registered) registered = (await client.register()).registered;
      if (registered) {
        const flow = await client.codeFlow(registered, SCOPE, account);
        if (flow.tokens) {
          tokens = flow.tokens;
          lastRefresh = Date.now();
          noteIdToken(flow.answer, flow.tokens);
          return;
        }
      }
      await sleep(1_000);
    }
  }

  /** The kid of an ID token the answer carried, beside the answer's ledger entry. */
  function noteIdToken(/** @type {import('./http.mjs').Answer} */ answer, /** @type {import('./oauth.mjs').Tokens} */ issued) {
    const last = latest.get(index);
    if (last && last['started'] === answer.started && issued.id_token) last['kid'] = kidOf(issued.id_token);
  }

  const bearer = () => ({ authorization: `Bearer ${tokens?.access_token}` });

  const actions = {
    read: () => client.call('read', 'GET', '/api/v1/posts?limit=5', { headers: bearer() }),
    write: async () => {
      const slug = `${RUN}-w${index}-${writes++}`;
      const post = { title: `Swarm ${slug}`, slug, body: `Written by worker ${index} of ${RUN}.`, author_name: 'Swarm Stage' };
      const answer = await client.call('write', 'POST', '/api/v1/posts', { headers: { ...bearer(), 'content-type': 'application/json' }, body: JSON.stringify(post) }, { slug, sent: post });
      const last = latest.get(index);
      if (answer.status === 201 && last) last['id'] = JSON.parse(answer.text).id;
      return answer;
    },
    upload: async () => {
      const content = Buffer.from(`upload of worker ${index} of ${RUN} at ${Date.now()}\n${'x'.repeat(2048)}\n`);
      const sha256 = createHash('sha256').update(content).digest('hex');
      const answer = await client.call('upload', 'POST', '/api/v1/storage/files?filename=swarm.txt', { headers: { ...bearer(), 'content-type': 'text/plain' }, body: content }, { sha256 });
      if (answer.status === 201) uploads.push({ path: new URL(JSON.parse(answer.text).url).pathname, sha256 });
      return answer;
    },
    refresh: async () => {
      if (!registered || !tokens?.refresh_token || Date.now() - lastRefresh < REFRESH_EVERY_MS) return actions.read();
      lastRefresh = Date.now();
      const answer = await client.refresh(registered, tokens.refresh_token);
      if (answer.status === 200) {
        tokens = { ...tokens, ...JSON.parse(answer.text) };
        noteIdToken(answer, /** @type {import('./oauth.mjs').Tokens} */ (tokens));
      } else if (answer.status !== 0) {
        // Refused: the grant is gone (the ledger has the refusal); a new one.
        tokens = undefined;
      }
      // No answer: the refresh token may have rotated or not; presenting it again is what a
      // client does (REFRESH_REUSE_GRACE_SECONDS covers a rotation whose answer was lost).
      return answer;
    },
    code: async () => {
      if (!registered) return actions.read();
      const flow = await client.codeFlow(registered, SCOPE, account);
      if (flow.tokens) noteIdToken(flow.answer, flow.tokens);
      return flow.answer;
    },
  };

  await signIn();
  while (!stopped()) {
    const started = Date.now();
    if (!tokens) await signIn();
    else await actions[/** @type {keyof typeof actions} */ (pick())]();
    const pause = 1000 / RATE - (Date.now() - started);
    if (pause > 0) await sleep(pause);
  }

  // What the platform answered still holds: every upload it accepted serves the same bytes,
  // the worker's last tokens still work.
  for (const upload of uploads) {
    const answer = await client.call('verify:download', 'GET', upload.path);
    const sha256 = createHash('sha256').update(answer.body).digest('hex');
    const last = latest.get(index);
    // A file served with other bytes than those accepted: half-written (status -1, a failure).
    if (answer.status === 200 && sha256 !== upload.sha256 && last) Object.assign(last, { status: -1, error: `served ${sha256}, uploaded ${upload.sha256}` });
  }
  if (tokens && registered) {
    await client.call('verify:read', 'GET', '/api/v1/posts?limit=1', { headers: bearer() });
    if (tokens.refresh_token) await client.form('verify:refresh', '/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: registered.client_id,
      client_secret: registered.client_secret,
    });
  }
}

const began = Date.now();
await Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)));
writeFileSync(OUT, ledger.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
/** @type {Record<string, Record<string, number>>} */
const byAction = {};
for (const entry of ledger) {
  const counts = (byAction[String(entry['action'])] ??= {});
  counts[String(entry['status'])] = (counts[String(entry['status'])] ?? 0) + 1;
}
console.log(JSON.stringify({ run: RUN, workers: WORKERS, connections: CONNECTIONS, seconds: Math.round((Date.now() - began) / 1000), requests: ledger.length, byAction }));

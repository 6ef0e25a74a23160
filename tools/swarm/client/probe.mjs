#!/usr/bin/env node
// The swarm stage's probe. Runs INSIDE a client container on the stack's `backend` network, where
// it reaches every task on its own address (`tasks.<service>` resolves to all of them), as the
// gateway does. Each command prints one JSON line.
//
//   node probe.mjs revocation --gateway=http://gateway:3000 [--trials=2]
//       a token revoked at each auth-server task (and once through the gateway): how long until
//       each resource-server task refuses it, polled on each task's own address
//   node probe.mjs registration --claim=198.51.100.23 [--max=40]
//       registrations claiming one client address (X-Forwarded-For, believed from this network),
//       sent to the auth-server tasks in turn, until refused; then once more to each task
//   node probe.mjs uploads --gateway=http://gateway:3000
//       a file uploaded at each resource-server task (and through the gateway), fetched from every task
//   node probe.mjs jwks --out=/out/jwks.jsonl --stop=/out/jwks.stop
//       each auth-server task's JWKS, every 200 ms until the stop file appears
//   node probe.mjs requests
//       the requests each auth-server and resource-server task has answered (http_request_duration_seconds_count)
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync } from 'node:fs';
import { addressesOf, send, sleep } from './http.mjs';
import { ACCOUNTS, OAuthClient } from './oauth.mjs';

const AUTH_PORT = 3001;
const RESOURCE_PORT = 3002;
/** How long a revoked token may stay accepted before the probe gives up on a task. */
const REVOCATION_GIVE_UP_MS = 5_000;
const POLL_EVERY_MS = 5;

const [command = ''] = process.argv.slice(2);
/** @param {string} name @param {string} fallback */
const option = (name, fallback) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const GATEWAY = option('gateway', 'http://gateway:3000');

/** @param {string} service */
const tasks = async (service) => (await addressesOf(`tasks.${service}`)).sort();
const sha256 = (/** @type {Buffer} */ bytes) => createHash('sha256').update(bytes).digest('hex');

/** A confidential client and a grant through the gateway, for the probe's own tokens. */
async function grant(/** @type {string} */ scope) {
  const gateway = new OAuthClient(GATEWAY);
  const { registered, answer } = await gateway.register();
  if (!registered) throw new Error(`registration through the gateway: ${answer.status} ${answer.text.slice(0, 200)}`);
  return {
    registered,
    async tokens() {
      const flow = await gateway.codeFlow(registered, scope, /** @type {{ email: string, password: string }} */ (ACCOUNTS[0]));
      if (!flow.tokens) throw new Error(`code flow through the gateway: ${flow.failure}`);
      return flow.tokens;
    },
  };
}

async function revocation() {
  const trials = Number(option('trials', '2'));
  const probe = await grant('openid posts:read');
  const authTasks = await tasks('auth-server');
  const results = [];
  for (const via of [...authTasks.map((address) => `http://${address}:${AUTH_PORT}`), GATEWAY]) {
    for (let trial = 0; trial < trials; trial++) {
      const { access_token: token } = await probe.tokens();
      const resourceTasks = await tasks('resource-server');
      const read = (/** @type {string} */ address) =>
        send(`http://${address}:${RESOURCE_PORT}`, 'GET', '/api/v1/posts?limit=1', { headers: { authorization: `Bearer ${token}` }, timeoutMs: 5_000 });
      // Each task has introspected the token and holds the answer (its cache is what a
      // revocation must reach).
      for (const address of resourceTasks) {
        for (let i = 0; i < 2; i++) {
          const answer = await read(address);
          if (answer.status !== 200) throw new Error(`resource-server ${address} refused a fresh token: ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      }
      const revoked = await new OAuthClient(via).revoke(probe.registered, token);
      if (revoked.status !== 200) throw new Error(`revocation at ${via}: ${revoked.status} ${revoked.text.slice(0, 200)}`);
      const delays = await Promise.all(
        resourceTasks.map(async (address) => {
          let lastAccepted = 0;
          for (;;) {
            const answer = await read(address);
            if (answer.status === 401) {
              // Refused at the latest when this answer arrived; accepted last when that one left.
              return { address, delayMs: Math.max(0, answer.ended - revoked.ended), acceptedAfterMs: lastAccepted ? Math.max(0, lastAccepted - revoked.ended) : null };
            }
            if (answer.status === 200) lastAccepted = answer.started;
            else return { address, delayMs: null, error: `${answer.status} ${answer.error ?? answer.text.slice(0, 200)}` };
            if (Date.now() - revoked.ended > REVOCATION_GIVE_UP_MS) return { address, delayMs: null, error: `still accepted ${REVOCATION_GIVE_UP_MS} ms after the revocation` };
            await sleep(POLL_EVERY_MS);
          }
        }),
      );
      results.push({ revokedAt: via === GATEWAY ? 'gateway' : new URL(via).hostname, answeredBy: revoked.address, delays });
    }
  }
  return { authTasks, resourceTasks: await tasks('resource-server'), results };
}

async function registration() {
  const claim = option('claim', '198.51.100.23');
  const max = Number(option('max', '40'));
  const authTasks = await tasks('auth-server');
  const clients = authTasks.map((address) => ({ address, client: new OAuthClient(`http://${address}:${AUTH_PORT}`) }));
  /** @type {Record<string, number>} */
  const registered = Object.fromEntries(authTasks.map((address) => [address, 0]));
  let refusal;
  for (let i = 0; i < max && !refusal; i++) {
    const { address, client } = /** @type {{ address: string, client: OAuthClient }} */ (clients[i % clients.length]);
    const { answer } = await client.register({ 'x-forwarded-for': claim });
    if (answer.status === 201) registered[address] = (registered[address] ?? 0) + 1;
    else refusal = { address, status: answer.status, error: safeJson(answer.text)?.error };
  }
  const afterwards = [];
  for (const { address, client } of clients) afterwards.push({ address, status: (await client.register({ 'x-forwarded-for': claim })).answer.status });
  return { claim, authTasks, registered, total: Object.values(registered).reduce((sum, n) => sum + n, 0), refusal, afterwards };
}

async function uploads() {
  const probe = await grant('storage:write');
  const { access_token: token } = await probe.tokens();
  const resourceTasks = await tasks('resource-server');
  const checks = [];
  for (const via of [...resourceTasks.map((address) => `http://${address}:${RESOURCE_PORT}`), GATEWAY]) {
    const content = Buffer.from(`swarm stage upload via ${via} at ${Date.now()}\n`);
    const answer = await send(via, 'POST', '/api/v1/storage/files?filename=swarm-probe.txt', {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body: content,
    });
    if (answer.status !== 201) {
      checks.push({ uploadedAt: label(via), uploadStatus: answer.status, error: answer.error ?? answer.text.slice(0, 200) });
      continue;
    }
    const path = new URL(JSON.parse(answer.text).url).pathname;
    const servedBy = [];
    for (const address of resourceTasks) {
      const served = await send(`http://${address}:${RESOURCE_PORT}`, 'GET', path);
      servedBy.push({ address, status: served.status, same: served.status === 200 && sha256(served.body) === sha256(content) });
    }
    checks.push({ uploadedAt: label(via), answeredBy: answer.address, uploadStatus: 201, servedBy });
  }
  return { resourceTasks, checks };
}

/** @param {string} origin */
const label = (origin) => (origin === GATEWAY ? 'gateway' : new URL(origin).hostname);

async function jwks() {
  const out = option('out', '/out/jwks.jsonl');
  const stop = option('stop', '/out/jwks.stop');
  let polls = 0;
  while (!existsSync(stop)) {
    const started = Date.now();
    /** @type {string[]} */
    let addresses = [];
    try {
      addresses = await tasks('auth-server');
    } catch {
      // Between two tasks of a one-task service: nothing to ask this round.
    }
    const lines = await Promise.all(
      addresses.map(async (address) => {
        const answer = await send(`http://${address}:${AUTH_PORT}`, 'GET', '/.well-known/jwks.json', { timeoutMs: 2_000 });
        const kids = answer.status === 200 ? (safeJson(answer.text)?.keys ?? []).map((/** @type {{ kid: string }} */ key) => key.kid) : null;
        return JSON.stringify({ at: answer.ended, address, status: answer.status, kids });
      }),
    );
    if (lines.length) appendFileSync(out, lines.join('\n') + '\n');
    polls++;
    await sleep(Math.max(0, 200 - (Date.now() - started)));
  }
  return { polls };
}

async function requests() {
  /** @type {Record<string, Record<string, number>>} */
  const counts = {};
  for (const [service, port] of /** @type {const} */ ([['auth-server', AUTH_PORT], ['resource-server', RESOURCE_PORT]])) {
    counts[service] = {};
    for (const address of await tasks(service)) {
      const answer = await send(`http://${address}:${port}`, 'GET', '/metrics', { timeoutMs: 5_000 });
      const total = answer.text
        .split('\n')
        .filter((line) => line.startsWith('http_request_duration_seconds_count'))
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
      counts[service][address] = answer.status === 200 ? total : -1;
    }
  }
  return counts;
}

/** @param {string} text */
function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const commands = { revocation, registration, uploads, jwks, requests };
if (!(command in commands)) {
  console.error(`usage: probe.mjs ${Object.keys(commands).join('|')} [--option=value ...]`);
  process.exit(2);
}
try {
  console.log(JSON.stringify(await commands[/** @type {keyof typeof commands} */ (command)]()));
} catch (error) {
  console.log(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
  process.exit(1);
}

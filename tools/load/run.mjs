#!/usr/bin/env node
// `npm run load`: mixed traffic against a platform this script starts (loopback only), for a
// fixed time, then the checks:
//   - no 5xx (and no request without an answer);
//   - every token it was given is active or not exactly as its own log of actions says
//     (introspection of each: access tokens as the resource server, refresh tokens as the
//     client holding them), and the API agreed with the log while it ran;
//   - the resident memory of each service does not keep growing (sampled all along).
// Real PostgreSQL / Redis when DATABASE_URL / REDIS_URL are set (fresh databases, dropped
// afterwards), the embedded ones otherwise.
//
//   npm run load                       90 s, 8 workers
//   npm run load -- --short            20 s, 4 workers (CI)
//   npm run load -- --duration=300 --workers=16 --no-build
//
// Exit code 0 when every check passes. The action log goes to tmp/load/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Browser, Client, Recorder, callApi, exchange, introspect, pkce, refresh, registerClient, revoke } from './flows.mjs';
import { Ledger } from './ledger.mjs';
import { childProcesses, rssMiB, startPlatform } from './platform.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const found = argv.find((arg) => arg.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
};
const short = argv.includes('--short');
const DURATION_S = option('duration', short ? 20 : 90);
const WORKERS = option('workers', short ? 4 : 8);
const SAMPLE_EVERY_MS = short ? 500 : 1_000;
/** Bounds on everything, whatever the clock does. */
const MAX_ACTIONS_PER_WORKER = 1_000_000;
const MAX_CLIENTS_PER_WORKER = 50;
/** A revocation reaches the resource server's caches as an event: this long may pass first. */
const REVOCATION_GRACE_MS = 2_000;
/** Memory: growth from the second quarter of the run to the last one that counts as unbounded. */
const MEMORY_GROWTH_LIMIT = { mib: 64, ratio: 0.5 };

for (const [name, value] of [['duration', DURATION_S], ['workers', WORKERS]]) {
  if (!Number.isInteger(value) || value < 1 || value > 3600) throw new Error(`--${name} must be an integer from 1 to 3600`);
}

const mode = `${process.env.DATABASE_URL ? 'real PostgreSQL' : 'embedded PostgreSQL'}, ${process.env.REDIS_URL ? 'Redis' : 'in-process bus'}`;
console.log(`Load: ${DURATION_S} s, ${WORKERS} workers, ${mode}. Starting the platform...`);
const platform = await startPlatform(root, { build: !argv.includes('--no-build') });
const recorder = new Recorder();
const ledger = new Ledger(recorder);
const client = new Client(platform.baseUrl, recorder);
const apiDisagreements = [];
const unexpected = [];
const samples = new Map();
let failed = false;

function sample() {
  const processes = [{ pid: platform.launcherPid, name: 'launcher (+ embedded PostgreSQL)' }, ...childProcesses(platform.launcherPid)];
  for (const { pid, name } of processes) {
    const mib = rssMiB(pid);
    if (mib === undefined) continue;
    if (!samples.has(name)) samples.set(name, []);
    samples.get(name).push({ at: Date.now(), mib });
  }
}

const pick = (items) => items[Math.floor(Math.random() * items.length)];

async function worker(index, deadline) {
  let browser = new Browser(client);
  let registered = await registerClient(client);
  let clients = 1;
  const mine = [];
  const live = () => mine.filter((grant) => !grant.revoked);

  async function codeFlow() {
    const { verifier, challenge } = pkce();
    const code = await browser.code(registered, challenge);
    const response = await exchange(client, registered, code, verifier);
    if (response.status !== 200) throw new Error(`code exchange: ${response.status} ${response.text.slice(0, 200)}`);
    const grant = ledger.issued(registered, response.json());
    mine.push(grant);
    return { grant, code, verifier };
  }

  const actions = {
    async flow() {
      await codeFlow();
    },
    async register() {
      if (clients >= MAX_CLIENTS_PER_WORKER) return;
      registered = await registerClient(client);
      clients++;
    },
    async api() {
      const grant = pick(mine);
      const token = pick(grant.accessTokens);
      const response = await callApi(client, token, pick(['/api/v1/students', '/api/v1/courses']));
      const active = ledger.isActive(token);
      if (response.status === 200 && !active) {
        if (Date.now() - ledger.inactiveSince(token) > REVOCATION_GRACE_MS) apiDisagreements.push({ grant: grant.id, status: 200, expected: 'inactive' });
      } else if (response.status === 401 && active) {
        apiDisagreements.push({ grant: grant.id, status: 401, expected: 'active' });
      } else if (response.status !== 200 && response.status !== 401) {
        unexpected.push(`api: ${response.status}`);
      }
    },
    async refresh() {
      const grant = pick(live());
      const presented = grant.refreshToken;
      const response = await refresh(client, grant.client, presented);
      if (response.status !== 200) return void unexpected.push(`refresh: ${response.status} ${response.text.slice(0, 120)}`);
      ledger.refreshed(grant, presented, response.json());
    },
    async revokeAccess() {
      const grant = pick(live());
      const token = pick(grant.accessTokens.filter((candidate) => ledger.isActive(candidate)));
      if (!token) return;
      const response = await revoke(client, grant.client, token);
      if (response.status !== 200) return void unexpected.push(`revoke: ${response.status}`);
      ledger.accessRevoked(token);
    },
    async revokeGrant() {
      const grant = pick(live());
      const response = await revoke(client, grant.client, grant.refreshToken);
      if (response.status !== 200) return void unexpected.push(`revoke: ${response.status}`);
      ledger.grantRevoked(grant, 'refresh token revoked');
    },
    async replay() {
      const { grant, code, verifier } = await codeFlow();
      const response = await exchange(client, registered, code, verifier, 'token:replay');
      if (response.status !== 400) return void unexpected.push(`replayed code: ${response.status}`);
      ledger.grantRevoked(grant, 'code replayed');
    },
    async newSession() {
      browser = new Browser(client);
    },
    async anonymous() {
      const path = pick(['/.well-known/oauth-authorization-server', '/.well-known/jwks.json', '/api/v1/courses', '/.well-known/oauth-protected-resource']);
      const response = await client.request('anonymous', path);
      if (response.status !== 200) unexpected.push(`${path}: ${response.status}`);
    },
  };

  for (let count = 0; count < MAX_ACTIONS_PER_WORKER && Date.now() < deadline; count++) {
    const roll = Math.random();
    const name =
      mine.length === 0 || live().length === 0 || roll < 0.16 ? 'flow'
      : roll < 0.2 ? 'register'
      : roll < 0.52 ? 'api'
      : roll < 0.7 ? 'refresh'
      : roll < 0.79 ? 'revokeAccess'
      : roll < 0.85 ? 'revokeGrant'
      : roll < 0.89 ? 'replay'
      : roll < 0.92 ? 'newSession'
      : 'anonymous';
    try {
      await actions[name]();
    } catch (error) {
      unexpected.push(`worker ${index} ${name}: ${error.message}`);
      if (unexpected.length > 1_000) throw new Error('too many unexpected answers, stopping');
    }
  }
}

function percentile(sorted, p) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)];
}

try {
  sample();
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  const started = Date.now();
  const deadline = started + DURATION_S * 1000;
  console.log(`The platform is up at ${platform.baseUrl}; running until ${new Date(deadline).toISOString()}.`);
  await Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index, deadline)));
  clearInterval(sampler);
  sample();
  const elapsed = (Date.now() - started) / 1000;
  // Let the last revocation events arrive before the caches are looked at again.
  await new Promise((resolve) => setTimeout(resolve, REVOCATION_GRACE_MS));

  // Every token, introspected: as the log says?
  const credentialsOf = (entry) =>
    entry.kind === 'access' ? platform.introspection : { clientId: entry.client.client_id, clientSecret: entry.client.client_secret };
  const tokenDisagreements = [];
  const entries = [...ledger.tokens.entries()];
  for (let i = 0; i < entries.length; i += 16) {
    await Promise.all(
      entries.slice(i, i + 16).map(async ([token, entry]) => {
        const active = await introspect(client, credentialsOf(entry), token);
        if (active !== (entry.state === 'active')) tokenDisagreements.push({ kind: entry.kind, grant: entry.grant.id, expected: entry.state, active });
      }),
    );
  }

  // Memory: second quarter of the run (warmed up) against the last quarter.
  const memory = [...samples].map(([name, points]) => {
    const span = points.at(-1).at - points[0].at;
    const quarter = (from, to) => points.filter((point) => point.at >= points[0].at + span * from && point.at <= points[0].at + span * to).map((point) => point.mib);
    const warm = median(quarter(0.25, 0.5));
    const end = median(quarter(0.75, 1));
    const growth = end - warm;
    const unbounded = growth > MEMORY_GROWTH_LIMIT.mib && growth > warm * MEMORY_GROWTH_LIMIT.ratio;
    return { name, start: points[0].mib, warm, end, peak: Math.max(...points.map((point) => point.mib)), growth, unbounded, samples: points.length };
  });

  // Figures.
  const requests = [...recorder.byAction.values()].reduce((sum, entry) => sum + entry.count, 0);
  console.log(`\n${requests} requests in ${elapsed.toFixed(1)} s (${(requests / elapsed).toFixed(1)}/s), ${ledger.grants.size} grants, ${ledger.tokens.size} tokens`);
  console.log('action              count     p50 ms   p95 ms   p99 ms');
  for (const [action, entry] of [...recorder.byAction].sort()) {
    const sorted = [...entry.durations].sort((a, b) => a - b);
    console.log(`${action.padEnd(18)} ${String(entry.count).padStart(6)} ${percentile(sorted, 50).toFixed(1).padStart(10)} ${percentile(sorted, 95).toFixed(1).padStart(8)} ${percentile(sorted, 99).toFixed(1).padStart(8)}`);
  }
  console.log(`statuses: ${[...recorder.statuses].sort((a, b) => a[0] - b[0]).map(([status, count]) => `${status}×${count}`).join(' ')}`);
  console.log('\nprocess                               start MiB  warm MiB  end MiB  peak MiB  growth');
  for (const row of memory) {
    console.log(`${row.name.slice(0, 36).padEnd(36)} ${row.start.toFixed(0).padStart(9)} ${row.warm.toFixed(0).padStart(9)} ${row.end.toFixed(0).padStart(8)} ${row.peak.toFixed(0).padStart(9)} ${(row.growth >= 0 ? '+' : '') + row.growth.toFixed(0)}${row.unbounded ? '  GROWING' : ''}`);
  }

  const checks = [
    ['no 5xx, every request answered', recorder.serverErrors.length === 0, recorder.serverErrors.slice(0, 5)],
    ['every token active or not as the log says (introspection)', tokenDisagreements.length === 0, tokenDisagreements.slice(0, 5)],
    ['the API agreed with the log', apiDisagreements.length === 0, apiDisagreements.slice(0, 5)],
    ['no unexpected answer', unexpected.length === 0, unexpected.slice(0, 5)],
    ['memory not growing without bound', memory.every((row) => !row.unbounded), memory.filter((row) => row.unbounded)],
    ['tokens were issued, refreshed and revoked', ledger.tokens.size > 0 && recorder.byAction.has('token:refresh') && recorder.byAction.has('revoke'), []],
  ];
  console.log('');
  for (const [name, ok, details] of checks) {
    console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}${ok ? '' : `: ${JSON.stringify(details)}`}`);
    if (!ok) failed = true;
  }

  const logDir = join(root, 'tmp/load');
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `load-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
  const lines = [
    ...recorder.log.map((entry) => JSON.stringify(entry)),
    JSON.stringify({ summary: { duration: elapsed, requests, statuses: Object.fromEntries(recorder.statuses), memory, checks: checks.map(([name, ok]) => ({ name, ok })) } }),
  ];
  writeFileSync(logFile, `${lines.join('\n')}\n`);
  console.log(`\nAction log: ${logFile}`);
  if (failed) console.log(`\nLast output of the services:\n${platform.output().slice(-2000)}`);
} catch (error) {
  failed = true;
  console.error(`load run failed: ${error.stack ?? error}`);
} finally {
  await platform.stop();
}
process.exitCode = failed ? 1 : 0;

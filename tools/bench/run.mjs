#!/usr/bin/env node
// `npm run bench` / `npm run bench:smoke`: starts the platform and panva's oidc-provider, drives
// load at them from another core, and prints (and writes as JSON) a Markdown table of req/s,
// latency and server CPU per request, with the targets of the performance budget.
// See tools/bench/results/README.md for what every number means.
//
// Options:
//   --smoke             1 round of 2 s per case, 0.5 s warm-up (CI)
//   --rounds N          rounds per case, interleaved (default 3)
//   --duration S        seconds per timed run (default 10)
//   --warmup S          seconds of warm-up per case before the rounds (default 2)
//   --repeat N          run the whole suite N times on the same processes (2: memory growth check)
//   --connections N     autocannon connections of the closed-loop cases (default 10)
//   --only a,b          only these cases (ids in the table)
//   --profile svc,...   start these (auth-server, resource-server, gateway, oidc-provider) with
//                       --cpu-prof; summarize the top self-time functions at the end
//   --no-build          use dist/ as it is
//   --no-pin            do not pin with taskset
// Environment:
//   BENCH_NODE_ARGS_AUTH_SERVER, …_RESOURCE_SERVER, …_GATEWAY, …_OIDC_PROVIDER, …_FLOOR: extra node flags
//                       for that process, space-separated (e.g. "--trace-gc --trace-gc-nvp")
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BENCH_SCOPE, FormAgent, REDIRECT_URI, exchangeCode, mapConcurrent, pkcePair, postForm, prepareCodes, registerClient } from './lib/oauth.mjs';
import { generateKeyPair, exportJWK, SignJWT } from 'jose';
import { startDocumentSite } from './lib/document-site.mjs';
import { build, probe, removeWorkDir, startPlatform, tail } from './lib/platform.mjs';
import { fmt, fmtAuto, fmtSummary, markdownTable, summary } from './lib/stats.mjs';
import { coreTimes, cpuPinning, cpuSeconds, machineDescription, pinned, rssBytes, smapsBreakdown } from './lib/system.mjs';
import { formatSummary, summarizeProfile } from './profile-summary.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const RESULTS = join(here, 'results');
/** Figures of a run before issue 12 on this machine kind, for targets stated as "N × the current rate". */
const BASELINE = JSON.parse(readFileSync(join(here, 'baseline.json'), 'utf8'));
const WORKER = join(here, 'load-worker.mjs');
/** How long the services idle after the last suite before their memory is read again (not in --smoke). */
const IDLE_SECONDS = 30;

// ---- options -------------------------------------------------------------------------------
function parseArgs(argv) {
  const options = { smoke: false, build: true, pin: true, repeat: 1, only: undefined, profile: [] };
  const value = (i) => {
    if (argv[i + 1] === undefined) throw new Error(`${argv[i]} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--smoke') options.smoke = true;
    else if (arg === '--no-build') options.build = false;
    else if (arg === '--no-pin') options.pin = false;
    else if (arg === '--rounds') options.rounds = Number(value(i++));
    else if (arg === '--duration') options.duration = Number(value(i++));
    else if (arg === '--warmup') options.warmup = Number(value(i++));
    else if (arg === '--repeat') options.repeat = Number(value(i++));
    else if (arg === '--connections') options.connections = Number(value(i++));
    else if (arg === '--only') options.only = value(i++).split(',');
    else if (arg === '--profile') options.profile = value(i++).split(',');
    else if (arg === '--help' || arg === '-h') {
      const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
      const header = lines.slice(1, lines.findIndex((line, i) => i > 0 && !line.startsWith('//')));
      console.log(header.map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
      process.exit(0);
    } else throw new Error(`unknown option ${arg}`);
  }
  options.rounds ??= options.smoke ? 1 : 3;
  options.duration ??= options.smoke ? 2 : 10;
  options.warmup ??= options.smoke ? 0.5 : 2;
  options.connections ??= 10;
  return options;
}

const options = parseArgs(process.argv.slice(2));
const log = (line) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);
const PROCESS_NAMES = { auth: 'auth-server', resource: 'resource-server', gateway: 'gateway', nginx: 'nginx', op: 'oidc-provider', floor: 'floor', embeddedDb: 'embedded-db' };
const SERVICES = ['auth', 'resource', 'gateway'];

// ---- running the load worker ---------------------------------------------------------------
let specCounter = 0;

function countsDelta(before, after) {
  if (!before || !after) return undefined;
  const byPath = {};
  for (const [path, count] of Object.entries(after.counts.fetchOutByPath)) {
    const delta = count - (before.counts.fetchOutByPath[path] ?? 0);
    if (delta) byPath[path] = delta;
  }
  const byText = {};
  for (const [text, count] of Object.entries(after.counts.pgQueriesByText ?? {})) {
    const delta = count - (before.counts.pgQueriesByText?.[text] ?? 0);
    if (delta) byText[text] = delta;
  }
  return {
    httpIn: after.counts.httpIn - before.counts.httpIn,
    fetchOut: after.counts.fetchOut - before.counts.fetchOut,
    pgQueries: after.counts.pgQueries - before.counts.pgQueries,
    fetchOutByPath: byPath,
    pgQueriesByText: byText,
  };
}

/** Runs the worker on the load core; with `measure`, reads every server process's CPU and counters around the run. */
async function runWorker(ctx, spec, { measure = false } = {}) {
  const file = join(ctx.platform.work, `spec-${++specCounter}.json`);
  writeFileSync(file, JSON.stringify({ ...spec, waitForGo: true }));
  const [command, args] = pinned(ctx.pinning.enabled ? ctx.pinning.loadCores : undefined, [process.execPath, WORKER, file]);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const processes = ctx.measured();
  const snapshot = async () => {
    const cores = coreTimes();
    const worker = cpuSeconds(child.pid);
    const cpu = Object.fromEntries(Object.entries(processes).map(([name, p]) => [name, cpuSeconds(p.pid)]));
    const probes = Object.fromEntries(await Promise.all(Object.entries(processes).map(async ([name, p]) => [name, await probe(p)])));
    return { cpu, probes, cores, worker };
  };
  let before;
  let result;
  let windowStart;
  for await (const line of createInterface({ input: child.stdout })) {
    const message = JSON.parse(line);
    if (message.event === 'ready') {
      if (measure) before = await snapshot();
      windowStart = Number(process.hrtime.bigint() / 1000n);
      child.stdin.write('go\n');
    } else if (message.event === 'result') {
      result = message;
      // CLOCK_MONOTONIC µs, the clock of V8's .cpuprofile timestamps: profiles are cut to the timed runs.
      result.window = [windowStart, Number(process.hrtime.bigint() / 1000n)];
      break;
    } else if (message.event === 'error') {
      throw new Error(`load worker failed: ${message.message}`);
    }
  }
  // Let requests still in flight at the server finish, so its counters are whole requests.
  if (measure) await new Promise((resolve) => setTimeout(resolve, 150));
  const after = measure ? await snapshot() : undefined;
  await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
  if (!result) throw new Error(`load worker ended without a result: ${stderr.slice(-2000)}`);
  if (measure) {
    result.cpuSeconds = Object.fromEntries(Object.keys(processes).map((name) => [name, after.cpu[name] - before.cpu[name]]));
    result.counts = Object.fromEntries(Object.keys(processes).map((name) => [name, countsDelta(before.probes[name], after.probes[name])]));
    // What everything else on the machine (PostgreSQL and Redis included) used of each core.
    const services = Object.values(result.cpuSeconds).reduce((sum, value) => sum + value, 0);
    const worker = after.worker - before.worker;
    const share = (core, ours) => {
      const b = before.cores[core];
      const a = after.cores[core];
      if (!a || !b) return undefined;
      return { busy: (a.busy - b.busy) / (a.total - b.total), others: (a.busy - b.busy - ours) / (a.total - b.total) };
    };
    if (ctx.pinning.enabled) {
      result.cores = {
        server: share(ctx.pinning.serverCores, services),
        load: share(ctx.pinning.loadCores, Number.isFinite(worker) ? worker : 0),
      };
    }
  }
  return result;
}

// ---- preparing tokens and codes (never timed) ------------------------------------------------
async function codes(ctx, count) {
  const started = performance.now();
  const list = await prepareCodes({ agent: ctx.agent, clientId: ctx.client.client_id, challenge: ctx.pkce.challenge, count, concurrency: 16 });
  ctx.prepSeconds += (performance.now() - started) / 1000;
  return list;
}

async function refreshTokens(ctx, count) {
  const list = await codes(ctx, count);
  const tokens = await mapConcurrent(list, 8, (code) =>
    exchangeCode(ctx.platform.urls.auth, { clientId: ctx.client.client_id, code, verifier: ctx.pkce.verifier }),
  );
  return tokens.map((token) => token.refresh_token);
}

function itemsFile(ctx, name, items) {
  const file = join(ctx.platform.work, `${name}-${++specCounter}.txt`);
  writeFileSync(file, items.join('\n'));
  return file;
}

const refreshRequest = (ctx) => ({
  method: 'POST',
  path: '/api/oauth/token',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: `grant_type=refresh_token&refresh_token={item}&client_id=${encodeURIComponent(ctx.client.client_id)}`,
});

/**
 * A hosted client that authenticates with private_key_jwt (RFC 7523), shaped like ChatGPT's
 * connectors: its metadata document on the bench's site (token_endpoint_auth_method
 * private_key_jwt, its RS256 public key in jwks), a loopback callback so codes come through the
 * same consent pages. Made on first use.
 */
async function privateKeyJwtClient(ctx) {
  if (ctx.privateKeyJwt) return ctx.privateKeyJwt;
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = 'bench-rs256';
  const publicJwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
  const clientId = ctx.site.json('/oauth/bench-connector/client.json', (url) => ({
    client_id: url,
    client_name: 'bench private_key_jwt client',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [publicJwk] },
  }));
  ctx.privateKeyJwt = { clientId, privateKey, kid, jti: 0 };
  return ctx.privateKeyJwt;
}

/**
 * Codes of the private_key_jwt client, each with an assertion of its own (a fresh jti, signed
 * here, never timed): one item per request, `code=…&client_assertion=…`. The assertions live
 * 300 s, the longest the server accepts: far longer than a run.
 */
async function privateKeyJwtItems(ctx, count) {
  const client = await privateKeyJwtClient(ctx);
  const started = performance.now();
  const list = await prepareCodes({ agent: ctx.agent, clientId: client.clientId, challenge: ctx.pkce.challenge, count, concurrency: 16 });
  const now = Math.floor(Date.now() / 1000);
  const items = await mapConcurrent(list, 16, async (code) => {
    const assertion = await new SignJWT({ iss: client.clientId, sub: client.clientId, aud: ctx.platform.publicBaseUrl, iat: now, exp: now + 300, jti: `bench-${++client.jti}-${now}` })
      .setProtectedHeader({ alg: 'RS256', kid: client.kid })
      .sign(client.privateKey);
    return `code=${code}&client_assertion=${assertion}`;
  });
  ctx.prepSeconds += (performance.now() - started) / 1000;
  return items;
}

const codeRequest = (ctx) => ({
  method: 'POST',
  path: '/api/oauth/token',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: `grant_type=authorization_code&code={item}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&client_id=${encodeURIComponent(ctx.client.client_id)}&code_verifier=${ctx.pkce.verifier}`,
});

/** Fresh access tokens, never used: refresh token chains run by the worker, collecting each answer's access token. */
async function mintAccessTokens(ctx, count) {
  const started = performance.now();
  const chains = 16;
  const initial = await refreshTokens(ctx, chains + 16);
  const out = join(ctx.platform.work, `minted-${++specCounter}.txt`);
  const result = await runWorker(ctx, {
    target: ctx.platform.urls.auth,
    request: refreshRequest(ctx),
    items: { file: itemsFile(ctx, 'refresh', initial), mode: 'chain' },
    chainField: 'refresh_token',
    collect: { field: 'access_token', file: out, stopAfter: count },
    connections: chains,
    duration: 900,
    expect: { status: [200] },
  });
  const tokens = readFileSync(out, 'utf8').split('\n').filter(Boolean);
  if (tokens.length < count) throw new Error(`minted ${tokens.length} of ${count} access tokens (${result.sampleUnexpected ?? 'chains broke'})`);
  ctx.prepSeconds += (performance.now() - started) / 1000;
  return tokens;
}

/**
 * The two write cases: one course per request (slugs are unique per school, so each request
 * takes a fresh one), a draft or published. The token has courses:write (minted once).
 */
async function courseWrite(ctx, id, seconds, warmup, published) {
  if (!ctx.writeToken) {
    const [code] = await prepareCodes({ agent: ctx.agent, clientId: ctx.client.client_id, challenge: ctx.pkce.challenge, count: 1, scope: 'courses:write' });
    ctx.writeToken = (await exchangeCode(ctx.platform.urls.auth, { clientId: ctx.client.client_id, code, verifier: ctx.pkce.verifier })).access_token;
  }
  const slugs = Array.from({ length: poolSize(ctx, id, seconds, warmup) }, () => `bench-${randomBytes(8).toString('hex')}`);
  return {
    target: ctx.platform.urls.resource,
    request: {
      method: 'POST',
      path: '/api/v1/courses',
      headers: { authorization: `Bearer ${ctx.writeToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Bench course', slug: '{item}', price_cents: 1000, published }),
    },
    items: { file: itemsFile(ctx, id, slugs), mode: 'once' },
    expect: { status: [201], bodyIncludes: '"slug"' },
  };
}

async function opAccessTokens(ctx, count) {
  return mapConcurrent(Array.from({ length: count }), 8, async () => {
    const answer = await postForm(`${ctx.platform.urls.op}/token`, {
      grant_type: 'client_credentials',
      client_id: 'bench-cc',
      client_secret: ctx.platform.secrets.opClientCredentials,
      scope: BENCH_SCOPE,
    });
    return answer.access_token;
  });
}

/**
 * How many items a run may consume: twice the best rate seen so far (the warm-up's is lower
 * than a warm server's) times the run's length, plus some. A run that still runs out stops
 * early and says so.
 */
function poolSize(ctx, id, seconds, warmup) {
  const estimate = ctx.estimates[id];
  // The first warm-up has no estimate: it may run out and stop early, which is fine for it.
  if (estimate === undefined) return Math.min(MAX_POOL, Math.ceil(300 + 400 * seconds));
  // A short warm-up underestimates a warm server more than a timed run does.
  const margin = warmup ? 1.5 : estimate.fromTimedRun ? 1.6 : 2;
  return Math.min(MAX_POOL, Math.ceil(estimate.rate * seconds * margin) + 300);
}

/**
 * Codes come through the real consent page, a few hundred a second: a fast exchange would spend
 * minutes preparing each round. Pools stop here; a run that uses its pool up stops early and
 * says so, and its rate is over the time it ran.
 */
const MAX_POOL = 3000;

// ---- the cases -------------------------------------------------------------------------------
const COURSES = '/api/v1/courses?limit=5';
/** For a token caller: the published courses only, so that its answer is anonymous's (same rows, same JSON). */
const COURSES_PUBLISHED = `${COURSES}&published=true`;

/** The path of a request target, its query dropped: what a DPoP proof's htu names (RFC 9449 §4.2). */
function pathOnly(target) {
  return target.split('?')[0];
}

/**
 * A DPoP key and an access token bound to it (RFC 9449 §5): a code exchanged with a proof, once
 * per run. The proofs name the public origin (the gateway's), as a client's do.
 */
async function dpopBoundToken(ctx) {
  ctx.dpopBound ??= (async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const key = { privateKey, jwk: await exportJWK(publicKey) };
    const [code] = await codes(ctx, 1);
    const tokenPath = '/api/oauth/token';
    const [proof] = await dpopProofs({ key }, 1, 'POST', `${ctx.platform.urls.gateway}${tokenPath}`);
    const response = await fetch(`${ctx.platform.urls.auth}${tokenPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: proof },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: ctx.client.client_id, code_verifier: ctx.pkce.verifier }),
    });
    const answer = await response.json();
    if (answer.token_type !== 'DPoP') throw new Error(`DPoP code exchange: ${response.status} ${JSON.stringify(answer)}`);
    return { key, accessToken: answer.access_token };
  })();
  return ctx.dpopBound;
}

/** The bench client's DPoP key for token requests (ES256), made once per run. */
async function dpopKey(ctx) {
  ctx.dpopKey ??= generateKeyPair('ES256').then(async ({ privateKey, publicKey }) => ({ privateKey, jwk: await exportJWK(publicKey) }));
  return ctx.dpopKey;
}

/** `count` proofs of `bound.key` for one method and URL, each its own jti (and ath when a token is bound). */
function dpopProofs(bound, count, htm, htu) {
  const ath = bound.accessToken === undefined ? {} : { ath: createHash('sha256').update(bound.accessToken).digest('base64url') };
  return mapConcurrent(Array.from({ length: count }), 8, () =>
    new SignJWT({ htm, htu, jti: randomUUID(), ...ath })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: bound.key.jwk })
      .setIssuedAt()
      .sign(bound.key.privateKey),
  );
}

/** oidc-provider's client_credentials grant (client_secret_post), as both of its cases send it. */
function opClientCredentials(ctx) {
  return {
    target: ctx.platform.urls.op,
    request: {
      method: 'POST',
      path: '/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=bench-cc&client_secret=${encodeURIComponent(ctx.platform.secrets.opClientCredentials)}&scope=${encodeURIComponent(BENCH_SCOPE)}`,
    },
    expect: { status: [200], bodyIncludes: '"access_token"' },
  };
}

const CASES = [
  {
    id: 'rs-anonymous',
    title: `resource server, anonymous GET ${COURSES}`,
    service: 'resource',
    spec: (ctx) => ({ target: ctx.platform.urls.resource, request: { method: 'GET', path: COURSES }, expect: { status: [200], bodyIncludes: '"data"' } }),
  },
  {
    id: 'floor-courses',
    title: `floor: a bare Fastify route running the resource server's SQL for ${COURSES} over pg, same JSON (tools/bench/floor-server.mjs)`,
    service: 'floor',
    available: (platform) => Boolean(platform.urls.floor),
    spec: (ctx) => ({ target: ctx.platform.urls.floor, request: { method: 'GET', path: COURSES }, expect: { status: [200], bodyIncludes: '"data"' } }),
  },
  {
    id: 'rs-bearer-warm',
    title: `resource server, bearer token, cache warm (same token), ${COURSES_PUBLISHED}: the same courses as anonymous (a token also sees drafts)`,
    service: 'resource',
    spec: (ctx) => ({
      target: ctx.platform.urls.resource,
      request: { method: 'GET', path: COURSES_PUBLISHED, headers: { authorization: `Bearer ${ctx.warmToken}` } },
      expect: { status: [200], bodyIncludes: '"data"' },
    }),
  },
  {
    id: 'rs-dpop',
    title: `resource server, DPoP-bound token with a fresh proof per request (one signature check), cache warm (same token), ${COURSES_PUBLISHED}`,
    service: 'resource',
    pool: true,
    spec: async (ctx, seconds, _round, warmup) => {
      const bound = await dpopBoundToken(ctx);
      // Made just before the run: each proof is single use, and good for 60 s after its iat.
      const proofs = await dpopProofs(bound, poolSize(ctx, 'rs-dpop', seconds, warmup), 'GET', `${ctx.platform.urls.gateway}${pathOnly(COURSES_PUBLISHED)}`);
      return {
        target: ctx.platform.urls.resource,
        request: { method: 'GET', path: COURSES_PUBLISHED, headers: { authorization: `DPoP ${bound.accessToken}`, dpop: '{item}' } },
        items: { file: itemsFile(ctx, 'dpop-proofs', proofs), mode: 'once' },
        expect: { status: [200], bodyIncludes: '"data"' },
      };
    },
  },
  {
    id: 'rs-guard-anonymous',
    title: 'resource server, guard only: anonymous POST /api/v1/courses (401 challenge, no handler, no query)',
    service: 'resource',
    spec: (ctx) => ({ target: ctx.platform.urls.resource, request: { method: 'POST', path: '/api/v1/courses' }, expect: { status: [401], bodyIncludes: '"error"' } }),
  },
  {
    id: 'rs-guard-bearer',
    title: 'resource server, guard only: the same with the warm token, which lacks courses:write (403 after the bearer check)',
    service: 'resource',
    spec: (ctx) => ({
      target: ctx.platform.urls.resource,
      request: { method: 'POST', path: '/api/v1/courses', headers: { authorization: `Bearer ${ctx.warmToken}` } },
      expect: { status: [403], bodyIncludes: 'insufficient_scope' },
    }),
  },
  {
    id: 'rs-bearer-miss',
    title: 'resource server, bearer token, every request a cache miss (introspection)',
    service: 'resource',
    pool: true,
    spec: async (ctx, seconds, _round, warmup) => {
      const tokens = await mintAccessTokens(ctx, poolSize(ctx, 'rs-bearer-miss', seconds, warmup));
      return {
        target: ctx.platform.urls.resource,
        request: { method: 'GET', path: COURSES, headers: { authorization: 'Bearer {item}' } },
        items: { file: itemsFile(ctx, 'fresh-tokens', tokens), mode: 'once' },
        expect: { status: [200], bodyIncludes: '"data"' },
      };
    },
  },
  {
    id: 'gw-direct',
    title: `gateway pair: direct to the resource server, 1 connection, anonymous GET ${COURSES}`,
    service: 'resource',
    connections: 1,
    spec: (ctx) => ({ target: ctx.platform.urls.resource, request: { method: 'GET', path: COURSES }, expect: { status: [200], bodyIncludes: '"data"' } }),
  },
  {
    id: 'gw-via',
    title: 'gateway pair: the same through the gateway, 1 connection',
    service: 'gateway',
    connections: 1,
    spec: (ctx) => ({ target: ctx.platform.urls.gateway, request: { method: 'GET', path: COURSES }, expect: { status: [200], bodyIncludes: '"data"' } }),
  },
  {
    id: 'gw-nginx',
    title: 'gateway pair: the same through nginx in place of the gateway (deploy/nginx, from libs/route-table), 1 connection',
    service: 'nginx',
    connections: 1,
    available: (platform) => Boolean(platform.urls.nginx),
    unavailable: 'no nginx on this machine (apt-get install nginx-light)',
    spec: (ctx) => ({ target: ctx.platform.urls.nginx, request: { method: 'GET', path: COURSES }, expect: { status: [200], bodyIncludes: '"data"' } }),
  },
  {
    id: 'introspect',
    title: 'auth server, POST /api/oauth/introspect (resource server credentials, 200 active tokens)',
    service: 'auth',
    spec: (ctx) => ({
      target: ctx.platform.urls.auth,
      request: {
        method: 'POST',
        path: '/api/oauth/introspect',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `token={item}&token_type_hint=access_token&client_id=resource-server&client_secret=${encodeURIComponent(ctx.platform.secrets.introspection)}`,
      },
      items: { file: ctx.introspectionTokensFile, mode: 'cycle' },
      expect: { status: [200], bodyIncludes: '"active":true' },
    }),
  },
  {
    id: 'op-introspect',
    title: 'oidc-provider 9, POST /token/introspection (same settings, 200 active tokens)',
    service: 'op',
    spec: async (ctx) => ({
      target: ctx.platform.urls.op,
      request: {
        method: 'POST',
        path: '/token/introspection',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `token={item}&token_type_hint=access_token&client_id=resource-server&client_secret=${encodeURIComponent(ctx.platform.secrets.opIntrospection)}`,
      },
      // Minted just before: its in-memory store is an LRU of 1,000 entries that the
      // client_credentials case churns through.
      items: { file: itemsFile(ctx, 'op-tokens', await opAccessTokens(ctx, 200)), mode: 'cycle' },
      expect: { status: [200], bodyIncludes: '"active":true' },
    }),
  },
  {
    id: 'token-refresh',
    title: 'auth server, token endpoint: refresh grant (a rotating chain per connection)',
    service: 'auth',
    spec: async (ctx) => ({
      target: ctx.platform.urls.auth,
      request: refreshRequest(ctx),
      items: { file: itemsFile(ctx, 'refresh', await refreshTokens(ctx, (ctx.options.connections ?? 10) + 20)), mode: 'chain' },
      chainField: 'refresh_token',
      expect: { status: [200], bodyIncludes: '"access_token"' },
    }),
  },
  {
    id: 'op-client-credentials',
    title: 'oidc-provider 9, token endpoint: client_credentials',
    service: 'op',
    spec: (ctx) => opClientCredentials(ctx),
  },
  {
    // The paced cases' reference: the same open loop, rate and load generator against
    // oidc-provider's in-memory client_credentials. Its p99 is what this machine and load
    // generator add to any server at that rate (GC pauses, the loaded core), no target of its own.
    id: 'op-client-credentials-paced',
    title: 'oidc-provider 9, client_credentials at a fixed rate of 0.5 × its own closed-loop req/s (open loop, reference for the paced cases)',
    service: 'op',
    spec: (ctx, _seconds, round) => {
      const reference = round['op-client-credentials']?.rps ?? 200;
      return {
        ...opClientCredentials(ctx),
        connections: 64,
        paced: { rate: Math.max(1, Math.round(0.5 * reference)) },
      };
    },
  },
  {
    id: 'token-refresh-paced',
    title: 'auth server, refresh grant at a fixed rate of 0.5 × oidc-provider client_credentials (open loop)',
    service: 'auth',
    spec: async (ctx, _seconds, round) => {
      const reference = round['op-client-credentials']?.rps ?? round['token-refresh']?.rps ?? 200;
      const rate = Math.max(1, Math.round(0.5 * reference));
      const lanes = 64;
      return {
        target: ctx.platform.urls.auth,
        request: refreshRequest(ctx),
        items: { file: itemsFile(ctx, 'refresh', await refreshTokens(ctx, lanes + 32)), mode: 'chain' },
        chainField: 'refresh_token',
        connections: lanes,
        paced: { rate },
        expect: { status: [200], bodyIncludes: '"access_token"' },
      };
    },
  },
  {
    id: 'token-code',
    title: 'auth server, token endpoint: authorization code exchange (PKCE, codes prepared before)',
    service: 'auth',
    pool: true,
    spec: async (ctx, seconds, _round, warmup) => {
      const list = await codes(ctx, poolSize(ctx, 'token-code', seconds, warmup));
      return {
        target: ctx.platform.urls.auth,
        request: codeRequest(ctx),
        items: { file: itemsFile(ctx, 'codes', list), mode: 'once' },
        expect: { status: [200], bodyIncludes: '"access_token"' },
      };
    },
  },
  {
    id: 'token-code-dpop',
    title:
      'auth server, token endpoint: authorization code exchange with a DPoP proof per request (its signature checked, its jti recorded in PostgreSQL, the tokens bound), codes and proofs prepared before',
    service: 'auth',
    pool: true,
    spec: async (ctx, seconds, _round, warmup) => {
      const list = await codes(ctx, poolSize(ctx, 'token-code-dpop', seconds, warmup));
      // Signed after the codes, just before the run: each proof is single use and accepted for
      // DPOP_PROOF_MAX_AGE_SECONDS (60 s) after its iat, longer than a run with its start.
      const proofs = await dpopProofs({ key: await dpopKey(ctx) }, list.length, 'POST', `${ctx.platform.urls.gateway}/api/oauth/token`);
      const request = codeRequest(ctx);
      return {
        target: ctx.platform.urls.auth,
        request: { ...request, headers: { ...request.headers, dpop: '{item.proof}' }, body: request.body.replace('{item}', '{item.code}') },
        items: { file: itemsFile(ctx, 'dpop-codes', list.map((code, i) => JSON.stringify({ code, proof: proofs[i] }))), mode: 'once', json: true },
        expect: { status: [200], bodyIncludes: '"token_type":"DPoP"' },
      };
    },
  },
  {
    id: 'token-code-paced',
    title: 'auth server, code exchange at a fixed rate of 0.5 × oidc-provider client_credentials (open loop)',
    service: 'auth',
    pool: true,
    spec: async (ctx, seconds, round) => {
      const reference = round['op-client-credentials']?.rps ?? round['token-code']?.rps ?? 200;
      const rate = Math.max(1, Math.round(0.5 * reference));
      const list = await codes(ctx, Math.min(MAX_POOL, Math.ceil(rate * seconds * 1.05) + 100));
      return {
        target: ctx.platform.urls.auth,
        request: codeRequest(ctx),
        items: { file: itemsFile(ctx, 'codes', list), mode: 'once' },
        connections: 64,
        paced: { rate },
        expect: { status: [200], bodyIncludes: '"access_token"' },
      };
    },
  },
  {
    id: 'token-code-private-key-jwt',
    title:
      'auth server, token endpoint: code exchange by a private_key_jwt client (a metadata document with an RS256 key in jwks; each request a fresh assertion verified and its jti recorded), codes prepared before',
    service: 'auth',
    pool: true,
    spec: async (ctx, seconds, _round, warmup) => {
      const items = await privateKeyJwtItems(ctx, poolSize(ctx, 'token-code-private-key-jwt', seconds, warmup));
      const client = await privateKeyJwtClient(ctx);
      return {
        target: ctx.platform.urls.auth,
        request: {
          method: 'POST',
          path: '/api/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=authorization_code&{item}&client_assertion_type=${encodeURIComponent('urn:ietf:params:oauth:client-assertion-type:jwt-bearer')}&client_id=${encodeURIComponent(client.clientId)}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&code_verifier=${ctx.pkce.verifier}`,
        },
        items: { file: itemsFile(ctx, 'assertion-codes', items), mode: 'once' },
        expect: { status: [200], bodyIncludes: '"access_token"' },
      };
    },
  },
  {
    id: 'rs-write-plain',
    title: 'resource server, POST /api/v1/courses, a draft (one INSERT, no event): the write before issue 31',
    service: 'resource',
    pool: true,
    spec: async (ctx, seconds, _round, warmup) => courseWrite(ctx, 'rs-write-plain', seconds, warmup, false),
  },
  {
    id: 'rs-write-event',
    title: 'resource server, POST /api/v1/courses published: the same INSERT and its course.published outbox row, in one transaction',
    service: 'resource',
    pool: true,
    spec: async (ctx, seconds, _round, warmup) => courseWrite(ctx, 'rs-write-event', seconds, warmup, true),
  },
  {
    id: 'register',
    title: 'auth server, POST /api/oauth/register (RFC 7591, public client)',
    service: 'auth',
    spec: (ctx) => ({
      target: ctx.platform.urls.auth,
      request: {
        method: 'POST',
        path: '/api/oauth/register',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'bench client', redirect_uris: [REDIRECT_URI] }),
      },
      expect: { status: [201], bodyIncludes: '"client_id"' },
    }),
  },
];

// ---- one suite -------------------------------------------------------------------------------
async function runCase(ctx, definition, seconds, round, measure) {
  const spec = await definition.spec(ctx, seconds, round, !measure);
  const result = await runWorker(ctx, { connections: definition.connections ?? options.connections, ...spec, duration: seconds }, { measure });
  if (!spec.paced) {
    const previous = ctx.estimates[definition.id];
    ctx.estimates[definition.id] = { rate: Math.max(previous?.rate ?? 0, result.rps), fromTimedRun: Boolean(previous?.fromTimedRun || measure) };
  }
  if (result.unexpected > 0) log(`  ${definition.id}: ${result.unexpected} unexpected responses, e.g. ${result.sampleUnexpected}`);
  if (result.exhausted && measure) log(`  ${definition.id}: its pool ran out after ${result.elapsedSec.toFixed(1)} s`);
  return result;
}

async function runSuite(ctx, repeat, cases) {
  log(`suite ${repeat + 1}/${options.repeat}: warm-up ${options.warmup} s per case`);
  const warm = {};
  for (const definition of cases) warm[definition.id] = await runCase(ctx, definition, options.warmup, warm, false);
  const rounds = [];
  for (let index = 0; index < options.rounds; index += 1) {
    const round = {};
    for (const definition of cases) {
      const result = await runCase(ctx, definition, options.duration, round, true);
      round[definition.id] = result;
      log(
        `  round ${index + 1}/${options.rounds} ${definition.id.padEnd(22)} ${fmt(result.rps).padStart(6)} req/s  p50 ${fmt(result.latencyMs.p50, 2)} ms  p99 ${fmt(result.latencyMs.p99, 2)} ms  CPU ${fmt((1e6 * result.cpuSeconds[definition.service]) / result.responses)} µs/req`,
      );
    }
    rounds.push(round);
  }
  return { rounds, memory: await memorySnapshot(ctx) };
}

/** Where a process's resident memory is, by kind of mapping (/proc/<pid>/smaps); undefined when it cannot be read. */
function smapsOf(pid) {
  try {
    return smapsBreakdown(pid);
  } catch {
    return undefined;
  }
}

/** ", after 30 s idle: N MB (young generation M MB)", when the bench waited for it. */
function idleNote(idle) {
  if (!idle) return '';
  return `; after ${IDLE_SECONDS} s idle, no forced GC: ${fmt(idle.rssBytes / 2 ** 20)} MB, young generation ${fmt((idle.memoryUsage?.youngGeneration ?? Number.NaN) / 2 ** 20)} MB`;
}

/** The largest kinds of a smaps breakdown, e.g. "malloc 120, V8 heap and buffers 80, node binary 56". */
function whereItIs(smaps) {
  if (!smaps) return 'smaps unreadable';
  return Object.entries(smaps)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([kind, bytes]) => `${kind} ${fmt(bytes / 2 ** 20)}`)
    .join(', ');
}

/** RSS from /proc after a full GC in each process (the probe triggers it), with V8's own figures and the mappings it is in. */
async function memorySnapshot(ctx, { gc = true } = {}) {
  const memory = {};
  for (const [name, child] of Object.entries(ctx.measured())) {
    const probed = await probe(child, { gc });
    memory[name] = { rssBytes: rssBytes(child.pid), heapUsedBytes: probed?.memory.heapUsed, memoryUsage: probed?.memory, smaps: smapsOf(child.pid) };
  }
  return memory;
}

// ---- the report ------------------------------------------------------------------------------
/** Requests the measured process served during the run (its probe), else the responses the load generator saw. */
function served(result, name) {
  return result.counts?.[name]?.httpIn || result.responses;
}

function perRequest(result, name, service = name) {
  return result.cpuSeconds?.[name] / served(result, service);
}

function analyse(ctx, suites, cases) {
  const allRounds = suites.flatMap((suite) => suite.rounds);
  const rowsFor = (id) => allRounds.map((round) => round[id]).filter(Boolean);
  const caseRows = cases.map((definition) => {
    const results = rowsFor(definition.id);
    const cpuAll = results.map((r) => Object.keys(r.cpuSeconds).reduce((sum, name) => sum + r.cpuSeconds[name], 0) / served(r, definition.service));
    const notes = [];
    const total = (field) => results.reduce((sum, r) => sum + (r[field] ?? 0), 0);
    // Kept apart: a wrong answer is the service's, a connection error may be the load generator's
    // (see tools/bench/results/README.md, "notes").
    if (total('unexpected')) notes.push(`${total('unexpected')} unexpected answers`);
    if (total('errors')) notes.push(`${total('errors')} connection errors`);
    if (total('timeouts')) notes.push(`${total('timeouts')} timeouts`);
    if (results.some((r) => r.exhausted)) notes.push('pool ran out early');
    if (results[0]?.paced) notes.push(`paced at ${fmtSummary(summary(results.map((r) => r.paced.rate)))} req/s`);
    return {
      id: definition.id,
      title: definition.title,
      service: PROCESS_NAMES[definition.service],
      connections: results[0]?.paced ? `${definition.connections ?? 64} lanes` : definition.connections ?? options.connections,
      rps: summary(results.map((r) => r.rps)),
      p50: summary(results.map((r) => r.latencyMs.p50)),
      p99: summary(results.map((r) => r.latencyMs.p99)),
      cpuServiceUs: summary(results.map((r) => 1e6 * perRequest(r, definition.service))),
      cpuAllUs: summary(cpuAll.map((v) => 1e6 * v)),
      responses: results.reduce((sum, r) => sum + r.responses, 0),
      notes: notes.join('; '),
      rounds: results,
    };
  });

  const perRound = (fn) => {
    const values = allRounds.map((round) => fn(round)).filter((v) => v !== undefined && Number.isFinite(v));
    return { ...summary(values), values };
  };
  const has = (...ids) => ids.every((id) => cases.some((c) => c.id === id));
  // On the median; when the rounds disagree, say how many passed: the difference is within the noise.
  const verdict = (s, ok) => {
    if (s.n === 0) return 'n/a';
    const base = ok(s.median) ? 'PASS' : 'MISS';
    if (!s.values || s.values.length < 2) return base;
    const passed = s.values.filter(ok).length;
    return passed === 0 || passed === s.values.length ? base : `${base} (${passed} of ${s.values.length} rounds pass)`;
  };
  const targets = [];

  if (has('rs-anonymous', 'rs-bearer-warm')) {
    const s = perRound((r) => 1e6 * (perRequest(r['rs-bearer-warm'], 'resource') - perRequest(r['rs-anonymous'], 'resource')));
    targets.push({ id: 'bearer-warm-cpu', target: `bearer check, warm cache: resource-server CPU per request, ${COURSES} with the token minus anonymous (the route's own work differs)`, measured: fmtAuto(s, ' µs'), goal: '≤ 5 µs', result: verdict(s, (v) => v <= 5), value: s });
  }
  if (has('rs-bearer-warm', 'rs-dpop')) {
    const s = perRound((r) => perRequest(r['rs-dpop'], 'resource') / perRequest(r['rs-bearer-warm'], 'resource'));
    targets.push({ id: 'dpop-vs-bearer', target: `DPoP-bound token (one proof checked per request) ÷ bearer token, warm cache: resource-server CPU per request, ${COURSES_PUBLISHED}`, measured: fmtSummary(s, 2, '×'), goal: 'reported', result: s.n === 0 ? 'n/a' : 'reported', value: s });
  }
  if (has('rs-guard-anonymous', 'rs-guard-bearer')) {
    const s = perRound((r) => 1e6 * (perRequest(r['rs-guard-bearer'], 'resource') - perRequest(r['rs-guard-anonymous'], 'resource')));
    targets.push({ id: 'bearer-guard-cpu', target: 'bearer check, warm cache, isolated: CPU per request of the 403 with the token minus the anonymous 401 (no handler, no query)', measured: fmtAuto(s, ' µs'), goal: '≤ 5 µs', result: verdict(s, (v) => v <= 5), value: s });
  }
  if (has('rs-anonymous', 'floor-courses')) {
    const s = perRound((r) => perRequest(r['rs-anonymous'], 'resource') / perRequest(r['floor-courses'], 'floor'));
    const floorUs = perRound((r) => 1e6 * perRequest(r['floor-courses'], 'floor'));
    targets.push({ id: 'rs-vs-floor', target: `resource server CPU per request, anonymous ${COURSES}, ÷ the floor's (bare Fastify + pg, same SQL and JSON: ${fmtAuto(floorUs, ' µs')})`, measured: fmtSummary(s, 2, '×'), goal: '≤ 2×', result: verdict(s, (v) => v <= 2), value: s });
  }
  if (has('rs-bearer-miss')) {
    const miss = (r) => r['rs-bearer-miss'];
    const intro = perRound((r) => (miss(r).counts.resource?.fetchOutByPath['/api/oauth/introspect'] ?? 0) / served(miss(r), 'resource'));
    targets.push({ id: 'miss-introspections', target: 'cache miss: introspection calls per request (resource server → auth server)', measured: fmtSummary(intro, 2), goal: '1', result: verdict(intro, (v) => Math.abs(v - 1) < 0.02), value: intro });
    const authServed = perRound((r) => miss(r).counts.auth?.httpIn / served(miss(r), 'resource'));
    targets.push({ id: 'miss-auth-requests', target: 'cache miss: requests the auth server served per resource-server request', measured: fmtSummary(authServed, 2), goal: '1', result: verdict(authServed, (v) => Math.abs(v - 1) < 0.02), value: authServed });
    if (has('rs-bearer-warm')) {
      const queriesPerRequest = (result) => result.counts.resource?.pgQueries / served(result, 'resource');
      const queries = perRound((r) => queriesPerRequest(miss(r)) - queriesPerRequest(r['rs-bearer-warm']));
      const base = perRound((r) => queriesPerRequest(r['rs-bearer-warm']));
      targets.push({ id: 'miss-db-queries', target: `cache miss: resource-server PostgreSQL queries per request beyond the warm case (the route itself makes ${fmtSummary(base, 2)})`, measured: fmtSummary(queries, 2), goal: '0', result: verdict(queries, (v) => Math.abs(v) < 0.02), value: queries });
    }
  }
  if (has('introspect', 'op-introspect')) {
    const s = perRound((r) => r.introspect.rps / r['op-introspect'].rps);
    targets.push({ id: 'introspection-vs-op', target: 'introspection req/s ÷ oidc-provider introspection req/s', measured: fmtSummary(s, 2, '×'), goal: '≥ 1.5×', result: verdict(s, (v) => v >= 1.5), value: s });
  }
  if (has('token-refresh', 'op-client-credentials')) {
    const s = perRound((r) => r['token-refresh'].rps / r['op-client-credentials'].rps);
    targets.push({ id: 'refresh-vs-op', target: 'refresh grant req/s ÷ oidc-provider client_credentials req/s', measured: fmtSummary(s, 2, '×'), goal: '≥ 0.5×', result: verdict(s, (v) => v >= 0.5), value: s });
  }
  // What the machine and the load generator add at that rate: oidc-provider in memory, same open loop.
  const referenceP99 = has('op-client-credentials-paced')
    ? `; oidc-provider itself at that load: p99 ${fmtAuto(perRound((r) => r['op-client-credentials-paced'].latencyMs.p99), ' ms')}`
    : '';
  if (has('token-refresh-paced')) {
    const s = perRound((r) => r['token-refresh-paced'].latencyMs.p99);
    const achieved = perRound((r) => r['token-refresh-paced'].rps / r['token-refresh-paced'].paced.rate);
    targets.push({ id: 'refresh-p99-at-load', target: `refresh grant p99 at 0.5 × oidc-provider client_credentials req/s (open loop; achieved ${fmtSummary(achieved, 2, '×')} of the planned rate${referenceP99})`, measured: fmtAuto(s, ' ms'), goal: '< 25 ms', result: verdict(s, (v) => v < 25), value: s });
  }
  if (has('token-code', 'op-client-credentials')) {
    const s = perRound((r) => r['token-code'].rps / r['op-client-credentials'].rps);
    targets.push({ id: 'code-vs-op', target: 'code exchange req/s ÷ oidc-provider client_credentials req/s', measured: fmtSummary(s, 2, '×'), goal: '≥ 0.5×', result: verdict(s, (v) => v >= 0.5), value: s });
  }
  if (has('token-code', 'token-code-dpop')) {
    const s = perRound((r) => perRequest(r['token-code-dpop'], 'auth') / perRequest(r['token-code'], 'auth'));
    targets.push({ id: 'token-dpop-vs-bearer', target: 'code exchange with a DPoP proof ÷ without: authorization-server CPU per request', measured: fmtSummary(s, 2, '×'), goal: 'reported', result: s.n === 0 ? 'n/a' : 'reported', value: s });
  }
  if (has('token-code-paced')) {
    const s = perRound((r) => r['token-code-paced'].latencyMs.p99);
    const achieved = perRound((r) => r['token-code-paced'].rps / r['token-code-paced'].paced.rate);
    targets.push({ id: 'code-p99-at-load', target: `code exchange p99 at 0.5 × oidc-provider client_credentials req/s (open loop; achieved ${fmtSummary(achieved, 2, '×')} of the planned rate${referenceP99})`, measured: fmtAuto(s, ' ms'), goal: '< 25 ms', result: verdict(s, (v) => v < 25), value: s });
  }
  if (has('register') && BASELINE?.register) {
    const s = perRound((r) => r.register.rps / BASELINE.register.rps);
    targets.push({ id: 'register-vs-baseline', target: `registration req/s ÷ the rate before issue 12 (${fmt(BASELINE.register.rps)} req/s, ${fmt(BASELINE.register.cpuUs)} µs CPU, ${BASELINE.source}; tools/bench/baseline.json)`, measured: fmtSummary(s, 2, '×'), goal: '≥ 2×', result: verdict(s, (v) => v >= 2), value: s });
  }
  if (has('gw-direct', 'gw-via')) {
    const s = perRound((r) => (100 * (r['gw-via'].latencyMs.p50 - r['gw-direct'].latencyMs.p50)) / r['gw-direct'].latencyMs.p50);
    const added = perRound((r) => 1000 * (r['gw-via'].latencyMs.p50 - r['gw-direct'].latencyMs.p50));
    targets.push({ id: 'gateway-p50', target: `gateway: p50 added over calling the resource server directly (1 connection; +${fmtAuto(added, ' µs')})`, measured: fmtSummary(s, 1, '%'), goal: '< 30%', result: verdict(s, (v) => v < 30), value: s });
  }
  if (has('gw-direct', 'gw-nginx')) {
    const s = perRound((r) => (100 * (r['gw-nginx'].latencyMs.p50 - r['gw-direct'].latencyMs.p50)) / r['gw-direct'].latencyMs.p50);
    const added = perRound((r) => 1000 * (r['gw-nginx'].latencyMs.p50 - r['gw-direct'].latencyMs.p50));
    targets.push({ id: 'nginx-p50', target: `nginx in place of the gateway (the production recommendation): p50 added over calling the resource server directly (1 connection; +${fmtAuto(added, ' µs')})`, measured: fmtSummary(s, 1, '%'), goal: '< 30%', result: verdict(s, (v) => v < 30), value: s });
  }
  const last = suites[suites.length - 1].memory;
  for (const name of SERVICES) {
    const mb = summary([last[name].rssBytes / 2 ** 20]);
    const usage = last[name].memoryUsage ?? {};
    const mib = (bytes) => fmt(bytes / 2 ** 20);
    targets.push({ id: `rss-${name}`, target: `RSS of ${PROCESS_NAMES[name]} after the suite (${mib(ctx.startMemory[name].rssBytes)} MB just after start; after GC: V8 heap ${mib(usage.heapUsed)} MB of ${mib(usage.heapTotal)}, young generation ${mib(usage.youngGeneration)} MB resident, external ${mib(usage.external)} MB; resident by mapping, MB: ${whereItIs(last[name].smaps)}${idleNote(ctx.idleMemory?.[name])})`, measured: fmtSummary(mb, 0, ' MB'), goal: '< 200 MB', result: verdict(mb, (v) => v < 200), value: mb });
  }
  for (const name of SERVICES) {
    if (suites.length < 2) {
      targets.push({ id: `rss-growth-${name}`, target: `RSS growth of ${PROCESS_NAMES[name]} from one suite to the next`, measured: 'n/a (run with --repeat 2)', goal: '≤ 10%', result: 'n/a' });
      continue;
    }
    const first = suites[suites.length - 2].memory[name];
    const second = last[name];
    const growth = summary([(100 * (second.rssBytes - first.rssBytes)) / first.rssBytes]);
    const heap = (100 * (second.heapUsedBytes - first.heapUsedBytes)) / first.heapUsedBytes;
    targets.push({
      id: `rss-growth-${name}`,
      target: `RSS growth of ${PROCESS_NAMES[name]}, suite ${suites.length - 1} → ${suites.length} (${fmt(first.rssBytes / 2 ** 20)} → ${fmt(second.rssBytes / 2 ** 20)} MB; heap after GC ${fmt(heap, 1)}%)`,
      measured: fmtSummary(growth, 1, '%'),
      goal: '≤ 10%',
      result: verdict(growth, (v) => v <= 10),
      value: growth,
    });
  }
  return { caseRows, targets };
}

function markdown(ctx, analysis, meta) {
  const { caseRows, targets } = analysis;
  const cases = markdownTable(
    ['case', 'measured process', 'conn.', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req (measured)', 'CPU µs/req (all services)', 'notes'],
    caseRows.map((row) => [
      `\`${row.id}\` ${row.title}`,
      row.service,
      row.connections,
      fmtSummary(row.rps),
      fmtAuto(row.p50),
      fmtAuto(row.p99),
      fmtAuto(row.cpuServiceUs),
      fmtAuto(row.cpuAllUs),
      row.notes,
    ]),
  );
  const goals = markdownTable(['target', 'measured', 'goal', 'result'], targets.map((t) => [t.target, t.measured, t.goal, t.result]));
  const m = meta.machine;
  return [
    `## Bench ${meta.startedAt}${options.smoke ? ' (smoke)' : ''}`,
    '',
    `Machine: ${m.nproc} cores, ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${m.node}, ${m.kernel}.`,
    `Pinning: ${meta.pinning.enabled ? meta.pinning.reason : `none (${meta.pinning.reason})`}.`,
    `Database: ${meta.database}. Cache/bus: ${meta.cache}.`,
    `Other processes on the machine during the timed runs (PostgreSQL and Redis included): ${meta.noise}.`,
    `Runs: ${options.repeat > 1 ? `${options.repeat} suites × ` : ''}${options.rounds} round(s) × ${options.duration} s per case, interleaved, after ${options.warmup} s warm-up per case; ${options.connections} connections unless stated. Values: median (min–max) over rounds.`,
    options.profile.length ? `**Profiling ${options.profile.join(', ')} with --cpu-prof: numbers are slower than usual.**` : '',
    '',
    cases,
    '',
    goals,
    '',
    `Wall time ${fmt(meta.durationSec)} s (preparing codes and tokens: ${fmt(ctx.prepSeconds)} s).`,
  ].join('\n');
}

// ---- main ------------------------------------------------------------------------------------
/** The code this run measures, read as it starts: the commit, and whether tracked files differed from it. */
function codeMeasured() {
  const git = (...args) => {
    try {
      return execFileSync('git', args, { cwd: here, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return undefined;
    }
  };
  const commit = git('rev-parse', 'HEAD');
  return commit ? { commit, uncommittedChanges: git('status', '--porcelain', '--untracked-files=no') !== '' } : {};
}

async function main() {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const measured = codeMeasured();
  const pinning = cpuPinning(!options.pin);
  const chosen = options.only ? CASES.filter((c) => options.only.includes(c.id)) : CASES;
  if (options.only && chosen.length !== options.only.length) {
    throw new Error(`unknown case in --only; cases: ${CASES.map((c) => c.id).join(', ')}`);
  }
  if (options.build) {
    log('building (nx, cached when unchanged)...');
    build();
  }
  const profileDir = options.profile.length ? join(RESULTS, `profiles-${startedAt.replace(/[:.]/g, '-')}`) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  log(pinning.enabled ? `pinning: ${pinning.reason}` : `no pinning: ${pinning.reason}`);
  const site = await startDocumentSite();
  let platform;
  try {
    platform = await startPlatform({ pinning, log, profile: profileDir ? { dir: profileDir, services: options.profile } : undefined, cimdCaFile: site.caFile });
  } catch (error) {
    await site.stop();
    throw error;
  }
  const stopAll = async () => {
    await platform.stop();
    await site.stop();
    removeWorkDir(platform.work);
  };
  const onSignal = () => {
    log('interrupted: stopping what the bench started');
    stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  log(`started: ${platform.databaseDescription}; ${platform.cacheDescription}`);
  const cases = chosen.filter((c) => !c.available || c.available(platform));
  for (const skipped of chosen.filter((c) => !cases.includes(c))) log(`skipped ${skipped.id}: ${skipped.unavailable ?? 'not available with this set-up (embedded databases)'}`);

  const ctx = {
    options,
    pinning,
    platform,
    site,
    estimates: {},
    prepSeconds: 0,
    measured: () => {
      const processes = { auth: platform.children.auth, resource: platform.children.resource, gateway: platform.children.gateway, op: platform.children.op };
      if (platform.children.floor) processes.floor = platform.children.floor;
      if (platform.children.nginx) processes.nginx = platform.children.nginx;
      if (platform.embeddedDb) processes.embeddedDb = platform.embeddedDb;
      return processes;
    },
  };
  let suites;
  try {
    ctx.client = await registerClient(platform.urls.auth, { client_name: 'bench public client' });
    ctx.agent = new FormAgent(platform.urls.auth);
    ctx.startMemory = await memorySnapshot(ctx);
    ctx.pkce = pkcePair();
    const [first] = await mapConcurrent(await codes(ctx, 1), 1, (code) =>
      exchangeCode(platform.urls.auth, { clientId: ctx.client.client_id, code, verifier: ctx.pkce.verifier }),
    );
    ctx.warmToken = first.access_token;
    ctx.introspectionTokensFile = itemsFile(ctx, 'introspection-tokens', await mintAccessTokens(ctx, 200));
    suites = [];
    for (let repeat = 0; repeat < options.repeat; repeat += 1) suites.push(await runSuite(ctx, repeat, cases));
    if (!options.smoke) {
      // What the services keep once the load is over: no forced GC, only V8's own memory reducer.
      log(`memory after ${IDLE_SECONDS} s idle...`);
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      ctx.idleMemory = await memorySnapshot(ctx, { gc: false });
    }
  } catch (error) {
    const logs = Object.values(platform.children).map((child) => `--- ${child.serviceName}\n${tail(child.logFile, 1500)}`).join('\n');
    await stopAll();
    throw new Error(`${error.stack}\n${logs}`);
  }
  await stopAll();
  const durationSec = (performance.now() - started) / 1000;

  const runs = suites.flatMap((suite) => suite.rounds.flatMap((round) => Object.values(round)));
  const noiseOf = (key) => summary(runs.map((r) => 100 * (r.cores?.[key]?.others ?? Number.NaN)));
  const serverNoise = noiseOf('server');
  const loadNoise = noiseOf('load');
  const meta = {
    startedAt,
    ...measured,
    noise: pinning.enabled
      ? `${fmtSummary(serverNoise, 0, '%')} of the services' core, ${fmtSummary(loadNoise, 0, '%')} of the load generator's core; load average at the end ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`
      : 'not measured without pinning',
    noiseDetail: { serverCorePercent: serverNoise, loadCorePercent: loadNoise },
    durationSec,
    machine: machineDescription(),
    pinning,
    database: platform.databaseDescription,
    cache: platform.cacheDescription,
    embedded: platform.embedded,
    redis: platform.redis,
    options,
  };
  const analysis = analyse(ctx, suites, cases);
  const report = markdown(ctx, analysis, meta);
  console.log(report);

  mkdirSync(RESULTS, { recursive: true });
  const stamp = startedAt.replace(/[:.]/g, '-');
  const json = JSON.stringify({ ...meta, prepSeconds: ctx.prepSeconds, cases: analysis.caseRows, targets: analysis.targets, memory: { start: ctx.startMemory, afterEachSuite: suites.map((s) => s.memory), afterIdle: ctx.idleMemory }, markdown: report }, null, 2);
  writeFileSync(join(RESULTS, `${stamp}${options.smoke ? '-smoke' : ''}.json`), json);
  writeFileSync(join(RESULTS, 'latest.json'), json);
  log(`written: tools/bench/results/${stamp}${options.smoke ? '-smoke' : ''}.json and latest.json`);

  if (profileDir) summarizeProfiles(profileDir, suites);
}

/** What to sum inclusive time of, per profiled process (tested against "functionName place"). */
const PROFILE_MATCHES = {
  common: {
    'Prisma client + adapter (incl. pg under it)': ' @prisma/',
    'pg driver': ' (pg|pg-protocol|pg-pool)$',
    'NestJS': ' @nestjs/',
    'Fastify': ' (fastify|find-my-way|avvio|fast-json-stringify)$',
    'garbage collector': '^\\(garbage collector\\)',
  },
  resource: {
    'bearer guard (BearerScopeGuard.canActivate)': '^canActivate app bundle',
    'passport': ' (passport|passport-http-bearer|@nestjs/passport)$',
    'TokenValidator': '^(validate|fromRedis|introspectOnce|introspect|toPrincipal|remember) app bundle',
    'node-redis': ' @redis/',
  },
  auth: { 'jose (JWT signing)': ' jose$', 'zod': ' zod$' },
  gateway: { 'proxy (undici Pool.dispatch, apps/gateway/src/forward.ts)': ' undici$', 'pino': ' (pino|pino-std-serializers|sonic-boom|thread-stream)$' },
  op: { 'koa': ' (koa|koa-compose|@koa/router|koa-router)$', 'jose': ' jose$' },
};

function summarizeProfiles(profileDir, suites) {
  const runs = suites.flatMap((suite) => suite.rounds.flatMap((round) => Object.values(round)));
  const windows = runs.map((r) => r.window);
  for (const file of readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'))) {
    const processName = file.replace(/\.cpuprofile$/, '');
    const key = Object.keys(PROCESS_NAMES).find((k) => PROCESS_NAMES[k] === processName);
    const requests = runs.reduce((sum, r) => sum + (r.counts?.[key]?.httpIn ?? 0), 0);
    const summary = summarizeProfile(join(profileDir, file), {
      top: 30,
      windows,
      requests,
      match: { ...PROFILE_MATCHES.common, ...(PROFILE_MATCHES[key] ?? {}) },
    });
    const text = formatSummary(summary);
    writeFileSync(join(profileDir, `${file}.md`), text);
    console.log(`\n### CPU profile of ${processName} (timed runs only)\n\n${text}`);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`bench failed: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  },
);

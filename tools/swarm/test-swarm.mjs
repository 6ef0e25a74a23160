#!/usr/bin/env node
// The swarm stage of CI (.ci/run, "swarm"): deploy/swarm/stack.yml on a one-node swarm of the
// local engine, two replicas of each platform service, and what replicas must do, shown
// through the gateway and on each task's own address:
//   1. revocation: a token revoked at each auth-server task (and through the gateway) is refused
//      by every resource-server task within REVOCATION_LIMIT_MS (the delay printed per task);
//   2. registration budget: one client address gets RATE_LIMIT_REGISTRATION_PER_IP (30)
//      registrations in all, whichever task answers (sent to the tasks in turn), and through
//      the gateway from a client container: 30, then 429;
//   3. uploads: a file uploaded at one resource-server task is served by the other;
//   4. kill under load: one auth-server and one resource-server task killed (docker kill) while
//      the load tool (client/load.mjs) runs; no request fails but those in flight at the kill,
//      and the ledger matches the database (ledger.mjs);
//   5. rolling update under load: `docker service update --force` of the three services in
//      turn; no request fails and the ledger matches the database;
//   6. a signing-key rotation under load, the platform's two steps in one deploy (the new key
//      first: every task's JWKS serves it at once, it signs once published for the activation
//      delay, 20 s here): no ID token carries a kid that a task's JWKS lacked afterwards.
// Then the stack, its networks and volume are removed and the node leaves the swarm (the
// engine itself is dockerd.sh's: .ci/run stops it and restores the host).
//
//   node tools/swarm/test-swarm.mjs              needs the images of build-images.sh (IMAGE_TAG)
//   TEST_SWARM_KEEP=1 node tools/swarm/test-swarm.mjs   leaves the stack up (and the swarm)
//   node tools/swarm/test-swarm.mjs --only=revocation,uploads   some checks only
//   node tools/swarm/test-swarm.mjs --connections=kept   the load tool's workers all keep their connections
//        to the gateway alive (fresh: a connection per request; default mixed: half and half)
// Base images: POSTGRES_IMAGE, REDIS_IMAGE (base-images.sh prints them); DOCKER names the CLI.
// Exit code 0 only when every check passed; the figures are printed either way.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import envTools from '../containers/generate-env.cjs';
import { compareWrites, failuresOf, keyTimeline, parseLedger, rotationViolations, splitByKill, summarize } from './ledger.mjs';
import { Swarm } from './swarm.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCKER = process.env.DOCKER || 'docker';
const STACK = process.env.TEST_SWARM_STACK || 'swarm-e2e';
const KEEP = process.env.TEST_SWARM_KEEP === '1';
const TAG = process.env.IMAGE_TAG || 'local';
const STACK_FILE = join(root, 'deploy/swarm/stack.yml');
const CLIENT_IMAGE = `localhost/course-platform/migrate:${TAG}`;
const GATEWAY = 'http://gateway:3000';
const APPS = ['auth-server', 'resource-server', 'gateway'];
const REPLICAS = 2;
const REVOCATION_LIMIT_MS = 500;
/** OIDC_SIGNING_KEY_ACTIVATION_SECONDS for the rehearsal (production: 600, above the JWKS's cache lifetime). */
const ACTIVATION_SECONDS = 20;
/** RATE_LIMIT_REGISTRATION_PER_IP's production default (apps/auth-server/src/config/limits-config.ts). */
const REGISTRATIONS_PER_ADDRESS = 30;
const CONVERGE_SECONDS = 300;
/** Load: workers and operations per second per worker (token limits per grant and user stay far). */
const LOAD = { workers: 6, rate: 4 };
/** What the stack runs once deployed. */
const EVERY_SERVICE = { postgres: 1, redis: 1, ...Object.fromEntries(APPS.map((app) => [app, REPLICAS])) };
const CHECKS = ['revocation', 'registration', 'uploads', 'kill', 'rolling', 'rotation'];
/** How the load tool's workers connect to the gateway: half keep their connections alive, half open one per request. */
const CONNECTIONS = process.argv.find((arg) => arg.startsWith('--connections='))?.slice('--connections='.length) ?? 'mixed';
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length).split(',') ?? CHECKS;

const started = Date.now();
/** @param {string} message */
const log = (message) => console.log(`test:swarm [${Math.round((Date.now() - started) / 1000)} s]: ${message}`);
const swarm = new Swarm({ docker: DOCKER, root, log }, STACK);
const out = mkdtempSync(join(tmpdir(), 'test-swarm-'));
// The client containers run as the image's `node` user and write their ledgers here.
chmodSync(out, 0o777);
/** @type {string[]} */
const helpers = [];
/** @type {{ name: string, passed: boolean, figures: string }[]} */
const results = [];

/**
 * The stack's variables: fresh secrets, NODE_ENV=test (an http issuer and the demo accounts the
 * clients sign in with; everything else as in production, rate limits included).
 * @param {Record<string, string>} overrides
 */
function stackEnv(overrides = {}) {
  return {
    ...process.env,
    ...secrets,
    NODE_ENV: 'test',
    PUBLIC_BASE_URL: GATEWAY,
    SEED_DEMO_DATA: 'true',
    LOG_LEVEL: 'warn',
    IMAGE_TAG: TAG,
    OIDC_SIGNING_KEY_ACTIVATION_SECONDS: String(ACTIVATION_SECONDS),
    ...overrides,
  };
}
const secrets = envTools.generateSecrets();
const firstKey = JSON.parse(secrets.OIDC_SIGNING_KEYS)[0];

/**
 * A client container: the migrate image's Node with the stage's client scripts, on one network.
 * @param {string} network
 */
function helper(network) {
  const id = swarm.must([
    'run', '-d', '--rm', '--network', `${STACK}_${network}`, '--entrypoint', 'sleep',
    '-v', `${join(root, 'tools/swarm/client')}:/swarm:ro`,
    '-v', `${join(root, 'tools/containers/client-probe.mjs')}:/probe/client-probe.mjs:ro`,
    '-v', `${out}:/out`,
    CLIENT_IMAGE, '3600',
  ]);
  helpers.push(id);
  return id;
}

/**
 * Runs a client script in a helper container and parses the JSON line it prints last.
 * @param {string} container
 * @param {string[]} args
 */
async function inContainer(container, args) {
  const { code, output } = await swarm.runAsync(['exec', container, 'node', ...args]);
  const line = output.trim().split('\n').pop() ?? '';
  let parsed;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`${args[0]} printed no result (exit ${code}): ${output.slice(-1500)}`);
  }
  if (code !== 0 && parsed.error) throw new Error(`${args[0]}: ${parsed.error}`);
  return parsed;
}

/**
 * @param {string} name
 * @param {() => Promise<{ passed: boolean, figures: string }>} check
 */
async function check(name, check) {
  if (!only.includes(name)) return;
  log(`--- ${name}`);
  const start = Date.now();
  try {
    // Each check starts on the stack as deployed, no update of a previous one still running.
    await swarm.waitConverged(EVERY_SERVICE, CONVERGE_SECONDS);
    const result = await check();
    results.push({ name, ...result, figures: `${result.figures} [${Math.round((Date.now() - start) / 1000)} s]` });
  } catch (error) {
    results.push({ name, passed: false, figures: `did not run to the end: ${error instanceof Error ? error.message : error}` });
  }
  const last = /** @type {{ name: string, passed: boolean, figures: string }} */ (results[results.length - 1]);
  log(`${last.passed ? 'PASS' : 'FAIL'} ${name}: ${last.figures}`);
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (/** @type {number | null | undefined} */ value) => (value === null || value === undefined ? 'never' : `${value} ms`);

async function deployStack() {
  swarm.init();
  log(`swarm initialised; deploying ${STACK} with PostgreSQL and Redis only, for the migration`);
  const none = { AUTH_SERVER_REPLICAS: '0', RESOURCE_SERVER_REPLICAS: '0', GATEWAY_REPLICAS: '0' };
  swarm.deploy([STACK_FILE], stackEnv(none));
  await swarm.waitConverged({ postgres: 1, redis: 1, 'auth-server': 0, 'resource-server': 0, gateway: 0 }, CONVERGE_SECONDS);
  log('migrating (the migrate image on the backend network)');
  const user = 'platform';
  const database = (/** @type {string} */ name) => `postgresql://${user}:${secrets.POSTGRES_PASSWORD}@postgres:5432/${name}`;
  const migration = await swarm.runAsync([
    'run', '--rm', '--network', `${STACK}_backend`,
    '-e', `AUTH_DATABASE_URL=${database('platform_auth')}`,
    '-e', `RESOURCE_DATABASE_URL=${database('platform_resource')}`,
    CLIENT_IMAGE,
  ]);
  if (migration.code !== 0) throw new Error(`the migration failed:\n${migration.output.slice(-3000)}`);
  log(`deploying ${REPLICAS} replicas of ${APPS.join(', ')}`);
  swarm.deploy([STACK_FILE], stackEnv());
  await swarm.waitConverged(EVERY_SERVICE, CONVERGE_SECONDS);
}

/**
 * The load tool in a client container on `edge` until `during` is done, then its ledger.
 * @param {string} container
 * @param {string} phase
 * @param {() => Promise<void>} during
 * @param {string[]} [extra] more load.mjs options
 */
async function underLoad(container, phase, during, extra = []) {
  const run = `${phase}-${Date.now().toString(36)}`;
  const stop = `/out/${phase}.stop`;
  const load = inContainer(container, ['/swarm/load.mjs', `--origin=${GATEWAY}`, `--run=${run}`, `--out=/out/${phase}.jsonl`, `--stop=${stop}`, `--workers=${LOAD.workers}`, `--rate=${LOAD.rate}`, `--connections=${CONNECTIONS}`, ...extra]);
  // Awaited below; a failure before then must not count as unhandled.
  load.catch(() => undefined);
  // Every worker signed in and sending before anything happens; meanwhile, how the gateway
  // spreads the requests over the tasks (what each task's http_request_duration_seconds_count grew by).
  const before = await requestsPerTask();
  await sleep(8_000);
  const after = await requestsPerTask();
  const spread = Object.entries(after)
    .map(([service, tasks]) => `${service} ${Object.values(Object.fromEntries(Object.entries(tasks).map(([address, n]) => [address, n - (before[service]?.[address] ?? 0)]))).join('/')}`)
    .join(', ');
  log(`  requests answered per task over the first 8 s: ${spread}`);
  let error;
  try {
    await during();
  } catch (caught) {
    error = caught;
  }
  writeFileSync(join(out, `${phase}.stop`), '');
  await load;
  if (error) throw error;
  return { run, spread, entries: parseLedger(readFileSync(join(out, `${phase}.jsonl`), 'utf8')) };
}

/** @returns {Promise<Record<string, Record<string, number>>>} */
const requestsPerTask = () => inContainer(probeContainer(), ['/swarm/probe.mjs', 'requests']);
/** @type {string | undefined} */
let probeId;
const probeContainer = () => /** @type {string} */ (probeId);

/**
 * The rows of the posts this run wrote, as the database holds them.
 * @param {string} run
 * @returns {import('./ledger.mjs').PostRow[]}
 */
function postsOf(run) {
  const [postgres] = swarm.containersOf('postgres');
  if (!postgres) throw new Error('no PostgreSQL container');
  const sql = `SELECT coalesce(json_agg(json_build_object('id', id, 'slug', slug, 'title', title, 'body', body, 'author_name', author_name)), '[]') FROM posts WHERE slug LIKE '${run}-%'`;
  return JSON.parse(swarm.must(['exec', postgres, 'psql', '-U', 'platform', '-d', 'platform_resource', '-At', '-c', sql]));
}

/**
 * One line about a phase's ledger: requests, failures by action and status, writes against the database.
 * @param {import('./ledger.mjs').Entry[]} entries
 * @param {ReturnType<typeof compareWrites>} writes
 */
function ledgerFigures(entries, writes) {
  const summary = summarize(entries);
  const failures = failuresOf(entries);
  const gateways = Object.values(summary.byAddress).join('/');
  return (
    `${summary.requests} requests in ${summary.seconds.toFixed(0)} s (per gateway task ${gateways}), ` +
    `${failures.length} failed${failures.length ? ` (${countBy(failures)})` : ''}; ` +
    `writes: ${writes.sent} sent, ${writes.answeredCreated} answered 201, ${writes.rows} rows, ${writes.inDoubt} without an answer (${writes.inDoubtWritten} of them written), ${writes.problems.length} ledger problems`
  );
}

/** @param {import('./ledger.mjs').Entry[]} entries "action status: n, ..." */
function countBy(entries) {
  /** @type {Record<string, number>} */
  const counts = {};
  for (const entry of entries) counts[`${entry.action} ${entry.status}`] = (counts[`${entry.action} ${entry.status}`] ?? 0) + 1;
  return Object.entries(counts).map(([key, n]) => `${key}: ${n}`).join(', ');
}

/** Up to three failures of each kind (action and status), with what was answered. @param {import('./ledger.mjs').Entry[]} failures */
function showFailures(failures) {
  /** @type {Map<string, import('./ledger.mjs').Entry[]>} */
  const kinds = new Map();
  for (const entry of failures) kinds.set(`${entry.action} ${entry.status}`, [...(kinds.get(`${entry.action} ${entry.status}`) ?? []), entry]);
  for (const [kind, entries] of kinds) {
    for (const entry of entries.slice(0, 3)) {
      const answer = /** @type {{ answer?: string }} */ (entry).answer ?? '';
      log(`  failed: ${entry.method} ${entry.path} -> ${entry.status} ${entry.error ?? ''}${answer.slice(0, 160)} (at +${entry.started - started} ms, ${entry.ended - entry.started} ms, via ${entry.address})`);
    }
    if (entries.length > 3) log(`  ... ${entries.length - 3} more ${kind}`);
  }
}

async function main() {
  const engine = swarm.run(['info', '--format', '{{.ServerVersion}}']);
  if (!engine.ok || !engine.stdout) throw new Error(`no Docker engine answers (${engine.stderr}); start one: bash tools/containers/dockerd.sh start`);
  for (const app of [...APPS, 'migrate']) {
    if (!swarm.run(['image', 'inspect', `localhost/course-platform/${app}:${TAG}`]).ok) throw new Error(`no image localhost/course-platform/${app}:${TAG}: build them first (tools/containers/build-images.sh)`);
  }
  log(`Docker ${engine.stdout}; stack ${STACK} from deploy/swarm/stack.yml; checks: ${only.join(', ')}; load: ${LOAD.workers} workers at ${LOAD.rate} operations/s, connections to the gateway: ${CONNECTIONS}`);
  const deployStart = Date.now();
  await deployStack();
  const replicas = swarm.replicas();
  log(`deployed in ${Math.round((Date.now() - deployStart) / 1000)} s: ${Object.entries(replicas).map(([name, r]) => `${name} ${r.running}/${r.desired}`).join(', ')}`);
  results.push({ name: 'deploy', passed: APPS.every((app) => replicas[app]?.running === REPLICAS), figures: Object.entries(replicas).map(([name, r]) => `${name} ${r.running}/${r.desired}`).join(', ') });

  const probe = helper('backend');
  probeId = probe;
  const loadClient = helper('edge');

  await check('revocation', async () => {
    const result = await inContainer(probe, ['/swarm/probe.mjs', 'revocation', `--gateway=${GATEWAY}`]);
    /** @type {number[]} */
    const all = [];
    for (const trial of result.results) {
      for (const delay of trial.delays) all.push(delay.delayMs ?? Infinity);
      log(`  revoked at ${trial.revokedAt}${trial.revokedAt === 'gateway' ? ` (answered via ${trial.answeredBy})` : ''}: ${trial.delays.map((/** @type {{ address: string, delayMs: number | null, error?: string }} */ d) => `${d.address} ${ms(d.delayMs)}${d.error ? ` (${d.error})` : ''}`).join(', ')}`);
    }
    /** @type {Record<string, number>} */
    const worst = {};
    for (const trial of result.results) for (const delay of trial.delays) worst[delay.address] = Math.max(worst[delay.address] ?? 0, delay.delayMs ?? Infinity);
    const passed = all.length > 0 && all.every((delay) => delay <= REVOCATION_LIMIT_MS) && result.resourceTasks.length === REPLICAS;
    return { passed, figures: `${result.results.length} revocations (at each of ${result.authTasks.length} auth-server tasks and through the gateway); slowest refusal per resource-server task: ${Object.entries(worst).map(([address, delay]) => `${address} ${ms(Number.isFinite(delay) ? delay : null)}`).join(', ')} (limit ${REVOCATION_LIMIT_MS} ms)` };
  });

  await check('registration', async () => {
    const direct = await inContainer(probe, ['/swarm/probe.mjs', 'registration', '--claim=198.51.100.23']);
    const perTask = Object.entries(direct.registered).map(([address, n]) => `${address}: ${n}`).join(', ');
    const directPassed =
      direct.total === REGISTRATIONS_PER_ADDRESS &&
      direct.refusal?.status === 429 &&
      direct.afterwards.every((/** @type {{ status: number }} */ answer) => answer.status === 429) &&
      Object.values(direct.registered).every((n) => Number(n) > 0);
    log(`  one address, the tasks in turn: ${direct.total} accepted (${perTask}), then ${direct.refusal?.status ?? 'no refusal'}; once more at each task: ${direct.afterwards.map((/** @type {{ address: string, status: number }} */ a) => `${a.address} ${a.status}`).join(', ')}`);
    // Through the gateway, from a client container of its own (an address nothing has spent).
    const client = helper('edge');
    const viaGateway = await inContainer(client, ['/probe/client-probe.mjs', GATEWAY, String(REGISTRATIONS_PER_ADDRESS + 5)]);
    const gatewayPassed = viaGateway.registered === REGISTRATIONS_PER_ADDRESS && viaGateway.refusal?.status === 429;
    log(`  through the gateway from ${viaGateway.addresses.join(',')}: ${viaGateway.registered} accepted, then ${viaGateway.refusal?.status ?? 'no refusal'}`);
    return {
      passed: directPassed && gatewayPassed,
      figures: `${direct.total} registrations accepted for one address over ${Object.keys(direct.registered).length} auth-server tasks (${perTask}), the ${direct.total + 1}st ${direct.refusal?.status}; through the gateway ${viaGateway.registered}, then ${viaGateway.refusal?.status} (budget ${REGISTRATIONS_PER_ADDRESS})`,
    };
  });

  await check('uploads', async () => {
    const result = await inContainer(probe, ['/swarm/probe.mjs', 'uploads', `--gateway=${GATEWAY}`]);
    let passed = result.resourceTasks.length === REPLICAS;
    for (const item of result.checks) {
      if (item.uploadStatus !== 201) {
        passed = false;
        log(`  upload at ${item.uploadedAt}: ${item.uploadStatus} ${item.error ?? ''}`);
        continue;
      }
      const served = item.servedBy.map((/** @type {{ address: string, status: number, same: boolean }} */ s) => `${s.address} ${s.status}${s.status === 200 ? (s.same ? ' same bytes' : ' OTHER bytes') : ''}`);
      if (!item.servedBy.every((/** @type {{ same: boolean }} */ s) => s.same)) passed = false;
      log(`  uploaded at ${item.uploadedAt}${item.uploadedAt === 'gateway' ? ` (via ${item.answeredBy})` : ''}: served by ${served.join(', ')}`);
    }
    const served = result.checks.flatMap((/** @type {{ servedBy?: { same: boolean }[] }} */ c) => c.servedBy ?? []);
    return { passed, figures: `${result.checks.length} uploads (at each resource-server task and through the gateway), ${served.filter((/** @type {{ same: boolean }} */ s) => s.same).length} of ${served.length} fetches from every task served the same bytes` };
  });

  await check('kill', async () => {
    /** @type {{ start: number, end: number }} */
    const kill = { start: 0, end: 0 };
    const killed = /** @type {string[]} */ ([]);
    const { run, spread, entries } = await underLoad(loadClient, 'kill', async () => {
      const targets = ['auth-server', 'resource-server'].map((service) => {
        const [container] = swarm.containersOf(service);
        if (!container) throw new Error(`no running task of ${service}`);
        return { service, container };
      });
      kill.start = Date.now();
      await Promise.all(targets.map((target) => swarm.runAsync(['kill', target.container])));
      kill.end = Date.now();
      killed.push(...targets.map((target) => `${target.service} ${target.container.slice(0, 12)}`));
      log(`  killed ${killed.join(' and ')} at +${kill.start - started} ms (${kill.end - kill.start} ms); waiting for swarm to replace them`);
      const replaced = Date.now();
      // Swarm notices the exit, starts a new task, and counts it once healthy.
      while (targets.some((target) => swarm.containersOf(target.service).includes(target.container) || swarm.containersOf(target.service).length < REPLICAS)) {
        if (Date.now() - replaced > CONVERGE_SECONDS * 1000) throw new Error('the killed tasks were not replaced');
        await sleep(500);
      }
      await swarm.waitConverged(EVERY_SERVICE, CONVERGE_SECONDS);
      log(`  replaced and healthy after ${Math.round((Date.now() - replaced) / 1000)} s; load continues 5 s`);
      await sleep(5_000);
    });
    const failures = failuresOf(entries);
    const { inFlight, beyond } = splitByKill(failures, kill);
    const writes = compareWrites(entries, postsOf(run));
    const sentDuringKill = entries.filter((entry) => entry.started <= kill.end && entry.ended >= kill.start).length;
    showFailures(failures);
    for (const problem of writes.problems.slice(0, 10)) log(`  ledger: ${problem}`);
    return {
      passed: beyond.length === 0 && writes.problems.length === 0,
      figures: `${ledgerFigures(entries, writes)}; in flight at the kill: ${sentDuringKill}, failed of those: ${inFlight.length}, failed beyond those: ${beyond.length}${beyond.length ? ` (${countBy(beyond)})` : ''}; requests per task in the 8 s before: ${spread}`,
    };
  });

  await check('rolling', async () => {
    /** @type {string[]} */
    const took = [];
    const { run, spread, entries } = await underLoad(loadClient, 'rolling', async () => {
      for (const app of APPS) {
        const start = Date.now();
        const update = await swarm.runAsync(['service', 'update', '--force', '--detach=false', swarm.serviceName(app)]);
        // The CLI returns once the tasks converged; swarm calls the update completed only after
        // the last task's monitor period. A second update before that would overlap this one.
        if (update.code === 0) await swarm.waitConverged(EVERY_SERVICE, CONVERGE_SECONDS);
        const state = swarm.updateState(app);
        took.push(`${app} ${Math.round((Date.now() - start) / 1000)} s`);
        if (update.code !== 0 || state !== 'completed') throw new Error(`the update of ${app} ended ${state || 'without a state'}: ${update.output.slice(-800)}`);
        log(`  ${app} updated (${took[took.length - 1]})`);
      }
      await sleep(3_000);
    });
    const failures = failuresOf(entries);
    const writes = compareWrites(entries, postsOf(run));
    showFailures(failures);
    for (const problem of writes.problems.slice(0, 10)) log(`  ledger: ${problem}`);
    return { passed: failures.length === 0 && writes.problems.length === 0 && writes.inDoubt === 0, figures: `${ledgerFigures(entries, writes)}; updates: ${took.join(', ')}; requests per task in the 8 s before: ${spread}` };
  });

  await check('rotation', async () => {
    // The platform's rotation: one deploy with the new key first. Step one, every replica's JWKS
    // serves it (the old replicas' too); step two, once published ACTIVATION_SECONDS, it signs.
    const newKey = envTools.generateSigningJwk();
    const watcher = inContainer(probe, ['/swarm/probe.mjs', 'jwks', '--out=/out/jwks.jsonl', '--stop=/out/jwks.stop']);
    watcher.catch(() => undefined);
    let deployed = 0;
    let rolled = 0;
    let entries;
    try {
      // ID tokens all along: code flows and refreshes (each answer carries one).
      ({ entries } = await underLoad(loadClient, 'rotation', async () => {
        deployed = Date.now();
        swarm.deploy([STACK_FILE], stackEnv({ OIDC_SIGNING_KEYS: JSON.stringify([newKey, firstKey]) }));
        // The deploy changes the auth server's environment only: it alone rolls.
        await sleep(2_000);
        await swarm.waitConverged(EVERY_SERVICE, CONVERGE_SECONDS);
        const state = swarm.updateState('auth-server');
        if (state !== 'completed') throw new Error(`the auth server's update ended ${state || 'without a state'}`);
        rolled = Date.now();
        log(`  deployed ${newKey.kid.slice(0, 8)} first, ${firstKey.kid.slice(0, 8)} after it: the auth server rolled in ${Math.round((rolled - deployed) / 1000)} s`);
        // The new key signs ACTIVATION_SECONDS after the first new task published it: ID tokens of both.
        await sleep(Math.max(10_000, deployed + (ACTIVATION_SECONDS + 15) * 1000 - Date.now()));
      }, ['--mix=read:20,refresh:50,code:30', '--rate=2']));
    } finally {
      writeFileSync(join(out, 'jwks.stop'), '');
      await watcher;
    }
    const observations = readFileSync(join(out, 'jwks.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const rotation = rotationViolations(entries, observations);
    const timeline = keyTimeline(entries, observations, newKey.kid, deployed);
    const failures = failuresOf(entries);
    showFailures(failures);
    for (const violation of rotation.violations.slice(0, 10)) log(`  violation: an ID token of ${violation.kid.slice(0, 8)} at +${violation.at - started} ms; ${violation.address}'s JWKS at +${violation.seenAt - started} ms had ${violation.kids.map((kid) => kid.slice(0, 8)).join(', ')}`);
    const after = (/** @type {number | null} */ at) => (at === null ? 'never' : `+${((at - deployed) / 1000).toFixed(1)} s`);
    const tasks = timeline.tasks.map((task) => `${task.address} (${task.old ? 'old' : 'new'}) ${after(task.withKey)}`).join(', ');
    log(`  the new key in each task's JWKS, after the deploy: ${tasks}; its first ID token ${after(timeline.firstToken)}`);
    const oldOnes = timeline.tasks.filter((task) => task.old);
    const kids = Object.entries(rotation.byKid).map(([kid, n]) => `${kid === newKey.kid ? 'new' : kid === firstKey.kid ? 'old' : kid.slice(0, 8)} key: ${n}`).join(', ');
    return {
      passed: rotation.violations.length === 0 && (rotation.byKid[newKey.kid] ?? 0) > 0 && (rotation.byKid[firstKey.kid] ?? 0) > 0 && failures.length === 0,
      figures:
        `${rotation.idTokens} ID tokens (${kids}), ${rotation.violations.length} of them with a kid a task's JWKS lacked afterwards; ` +
        `${rotation.observations} JWKS answers from ${rotation.tasksWatched} auth-server tasks: the new key in the ${oldOnes.length} old tasks' JWKS ${oldOnes.map((task) => after(task.withKey)).join(' and ')} after the deploy, ` +
        `its first ID token ${after(timeline.firstToken)} (activation ${ACTIVATION_SECONDS} s); the auth server rolled in ${Math.round((rolled - deployed) / 1000)} s; ${failures.length} failed requests`,
    };
  });

  // What each task holds after all this (its limit is stack.yml's deploy.resources).
  const memory = swarm.run(['stats', '--no-stream', '--format', '{{.Name}} {{.MemUsage}}', ...APPS.flatMap((app) => swarm.containersOf(app))]).stdout;
  results.push({ name: 'memory', passed: true, figures: memory.split('\n').map((line) => line.slice(STACK.length + 1).replace(/\.\w{25} /, ' ')).join(', ') });
  return results.every((result) => result.passed) ? 0 : 1;
}

/** @type {Promise<void> | undefined} */
let tearingDown;
/** Once, whoever asks first (the end of main, or a signal). */
const teardown = () => (tearingDown ??= removeEverything());

async function removeEverything() {
  for (const id of helpers) swarm.run(['rm', '-f', id]);
  if (KEEP) {
    log(`leaving the stack up (TEST_SWARM_KEEP=1): docker stack rm ${STACK}; docker swarm leave --force`);
    return;
  }
  log('removing the stack, its networks and volume; leaving the swarm');
  const leftovers = await swarm.teardown(['postgres-data']);
  if (leftovers.length) {
    console.error(`test:swarm: left behind: ${leftovers.join(', ')}`);
    process.exitCode = 1;
  }
  rmSync(out, { recursive: true, force: true });
}

function report() {
  console.log('\nswarm stage figures:');
  for (const result of results) console.log(`  ${result.passed ? 'PASS' : 'FAIL'} ${result.name}: ${result.figures}`);
  console.log(`  the stage took ${Math.round((Date.now() - started) / 1000)} s`);
}

// A client script whose container went away during a teardown: reported, never a crash that
// would skip the rest of the teardown.
process.on('unhandledRejection', (error) => console.error(`test:swarm: ${error instanceof Error ? error.message : error}`));

let stopping = false;
for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM'])) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void teardown().then(() => process.exit(130));
  });
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error(`test:swarm: ${error instanceof Error ? error.message : error}`);
  if (swarm.initialized) console.error(swarm.logs(['postgres', 'redis', ...APPS]));
}
if (code !== 0 && swarm.initialized) console.error(swarm.logs(APPS));
await teardown();
report();
process.exit(process.exitCode || code);

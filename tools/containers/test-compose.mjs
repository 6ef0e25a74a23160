#!/usr/bin/env node
// `npm run test:compose`: the platform end-to-end suite against the docker-compose.yml stack.
//   1. builds the images (unless --no-build: then they must exist, e.g. from build-images.sh)
//      and starts the stack under its own project name, with a throwaway env file (fresh
//      secrets, NODE_ENV=test, the demo accounts the suite signs in with, the gateway on a free
//      127.0.0.1 port that is also PUBLIC_BASE_URL), waiting until every service is healthy and
//      the migration job has completed;
//   2. the client-address test (client-address.mjs) on the stack as shipped, production rate
//      limits included: two client containers on the `edge` network get separate budgets, and
//      a forged X-Forwarded-For buys nothing;
//   3. the auth server recreated with the suite's limits (test-compose.e2e-limits.yml says why),
//      then apps/platform-e2e with E2E_BASE_URL pointing at the gateway;
//   4. each service container checked: under its memory limit, never OOM-killed or restarted,
//      and its memory printed (docker stats);
//   5. removes the stack and its volumes; exits 0 only if all of these passed.
// Needs a Docker engine (Compose v2, or docker-compose 1.29); without one it says so and exits 1.
// Base images: NODE_IMAGE, POSTGRES_IMAGE, REDIS_IMAGE from the environment (default: the
// official ones). DOCKER names the docker CLI (default `docker`).
// --nginx: the stack with docker-compose.nginx.yml (nginx from deploy/nginx in place of apps/gateway;
// its image is built here even with --no-build: FROM NGINX_IMAGE plus the generated config).
// Other arguments go to jest (e.g. -t "revocation", or a path: one suite). TEST_COMPOSE_KEEP=1
// leaves the stack running.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testClientAddresses } from './client-address.mjs';
import envTools from './generate-env.cjs';
import { freePort } from '../platform/free-port.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const PROJECT = process.env.TEST_COMPOSE_PROJECT || 'course-platform-e2e';
const KEEP = process.env.TEST_COMPOSE_KEEP === '1';
const WAIT_SECONDS = Number(process.env.TEST_COMPOSE_WAIT_SECONDS || 600);
const DOCKER = process.env.DOCKER || 'docker';
const NO_BUILD = process.argv.includes('--no-build');
const NGINX = process.argv.includes('--nginx');
const JEST_ARGS = process.argv.slice(2).filter((arg) => arg !== '--no-build' && arg !== '--nginx');
const NGINX_OVERRIDE = join(root, 'docker-compose.nginx.yml');
const E2E_LIMITS = join(root, 'tools/containers/test-compose.e2e-limits.yml');
/** Passed through to the env file when set: where the base images come from. */
// (NGINX_IMAGE, for --nginx, is read from the environment compose runs in: it is not in .env.example.)
const IMAGE_VARIABLES = ['NODE_IMAGE', 'POSTGRES_IMAGE', 'REDIS_IMAGE', 'IMAGE_TAG', 'PLATFORM_BACKEND_SUBNET'];

/**
 * @typedef {{ command: string, prefix: string[], v2: boolean, base: string[] }} Compose
 */

const started = Date.now();
/** @param {string} message (with the seconds since the start, so that each phase is measured) */
const log = (message) => console.log(`test:compose [${Math.round((Date.now() - started) / 1000)} s]: ${message}`);

/**
 * @param {string} command
 * @param {string[]} args
 */
function capture(command, args) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: !result.error && result.status === 0, stdout: result.stdout ?? '', stderr: result.stderr ?? '', error: result.error };
}

/** The Docker engine answers (the client alone is not enough). */
function checkEngine() {
  const info = capture(DOCKER, ['info', '--format', '{{.ServerVersion}}']);
  if (info.ok && info.stdout.trim()) return info.stdout.trim();
  const reason = /** @type {NodeJS.ErrnoException | undefined} */ (info.error)?.code === 'ENOENT' ? 'the docker CLI is not installed' : (info.stderr || info.stdout).trim().split('\n')[0];
  console.error(
    [
      'test:compose: no Docker engine is reachable, so the stack cannot be built or started here.',
      `  (docker info: ${reason || 'no answer'})`,
      '  Any Docker engine will do (Docker Desktop, dockerd with Compose v2, or docker-compose 1.29).',
      '  On a Debian 12 machine without systemd, as root (README, "Containers"):',
      '    apt-get install -y docker.io docker-compose debootstrap',
      '    bash tools/containers/dockerd.sh start          # stop: bash tools/containers/dockerd.sh stop',
      '    eval "$(bash tools/containers/base-images.sh)"  # offline stand-ins for the base images',
      '    export NODE_IMAGE POSTGRES_IMAGE REDIS_IMAGE DOCKER=/usr/bin/docker',
      '  Static checks that need no engine: npx jest -c tools/containers/jest.config.cjs, and',
      '  node tools/containers/generate-env.cjs --out /tmp/compose.env && docker-compose --env-file /tmp/compose.env config -q',
    ].join('\n'),
  );
  process.exit(1);
}

/**
 * `docker compose` (v2) when present, else `docker-compose` (1.29).
 * @returns {{ command: string, prefix: string[], v2: boolean }}
 */
function composeCommand() {
  if (capture(DOCKER, ['compose', 'version']).ok) return { command: DOCKER, prefix: ['compose'], v2: true };
  if (capture('docker-compose', ['version']).ok) return { command: 'docker-compose', prefix: [], v2: false };
  console.error('test:compose: neither `docker compose` nor `docker-compose` is installed.');
  process.exit(1);
}

/** @returns {Promise<number>} */
/**
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv | undefined} env
 * @returns {Promise<number>}
 */
function runInherit(command, args, env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: 'inherit' });
    state.child = child;
    child.once('error', (error) => {
      console.error(`test:compose: ${command}: ${error.message}`);
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      state.child = undefined;
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * docker-compose 1.29 has no `up --wait`: its `up -d` already waits for the depends_on
 * conditions of each service it starts; this waits for the rest (the gateway's own health).
 * @param {Compose} compose
 */
async function waitHealthy(compose) {
  const deadline = Date.now() + WAIT_SECONDS * 1000;
  for (;;) {
    const ids = capture(compose.command, [...compose.base, 'ps', '-q']).stdout.split('\n').filter(Boolean);
    const states = ids.map((id) => {
      const format = '{{.Name}}|{{.State.Status}}|{{if .State.Health}}{{.State.Health.Status}}{{end}}|{{.State.ExitCode}}';
      const [name, status, health, exitCode] = capture(DOCKER, ['inspect', '--format', format, id]).stdout.trim().split('|');
      return { name, status, health, exitCode: Number(exitCode) };
    });
    const failed = states.find((s) => (s.status === 'exited' && s.exitCode !== 0) || s.health === 'unhealthy');
    if (failed) throw new Error(`${failed.name} is ${failed.health || `${failed.status} (exit ${failed.exitCode})`}`);
    const pending = states.filter((s) => !(s.status === 'exited' ? s.exitCode === 0 : s.status === 'running' && (!s.health || s.health === 'healthy')));
    if (states.length > 0 && pending.length === 0) return;
    if (Date.now() > deadline) throw new Error(`not healthy after ${WAIT_SECONDS} s: ${pending.map((s) => `${s.name} ${s.health || s.status}`).join(', ')}`);
    await sleep(2000);
  }
}

/**
 * @type {{ child?: import('node:child_process').ChildProcess, compose?: Compose, env?: NodeJS.ProcessEnv, tempDir?: string, stopping: boolean }}
 */
const state = { stopping: false };

async function teardown() {
  if (state.compose && !KEEP) {
    log('removing the stack and its volumes');
    await runInherit(state.compose.command, [...state.compose.base, 'down', '-v', '--remove-orphans'], state.env);
  } else if (state.compose) {
    log(`leaving the stack up (TEST_COMPOSE_KEEP=1): ${state.compose.command} ${state.compose.base.join(' ')} down -v`);
  }
  if (state.tempDir && !KEEP) rmSync(state.tempDir, { recursive: true, force: true });
}

/** @param {Compose} compose */
async function printLogs(compose) {
  log('last log lines of the stack:');
  await runInherit(compose.command, [...compose.base, 'logs', '--no-color', '--tail=100'], state.env);
}

async function main() {
  const engine = checkEngine();
  const command = composeCommand();
  const port = Number(process.env.GATEWAY_PUBLISH_PORT) || (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;

  // NODE_ENV=test: the auth server accepts an http issuer and the demo accounts the suite uses
  // (both refused in production). Everything else is the production configuration.
  const values = {
    ...envTools.generateSecrets(),
    NODE_ENV: 'test',
    PUBLIC_BASE_URL: baseUrl,
    GATEWAY_PUBLISH_ADDRESS: '127.0.0.1',
    GATEWAY_PUBLISH_PORT: String(port),
    SEED_DEMO_DATA: 'true',
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(IMAGE_VARIABLES.filter((name) => process.env[name]).map((name) => [name, String(process.env[name])])),
  };
  const tempDir = mkdtempSync(join(tmpdir(), 'test-compose-'));
  state.tempDir = tempDir;
  const envFile = join(tempDir, 'compose.env');
  writeFileSync(envFile, envTools.renderEnvFile(readFileSync(join(root, '.env.example'), 'utf8'), values), { mode: 0o600 });
  // Variables of the calling shell win over the env file in Compose: set them to the same values.
  state.env = { ...process.env, ...values };
  const files = [join(root, 'docker-compose.yml'), ...(NGINX ? [NGINX_OVERRIDE] : [])].flatMap((file) => ['-f', file]);
  /** @type {Compose} */
  const compose = { ...command, base: [...command.prefix, '--env-file', envFile, '-p', PROJECT, ...files] };
  state.compose = compose;

  log(`Docker ${engine}, ${compose.v2 ? 'Compose v2' : 'docker-compose 1.x'}; project ${PROJECT}; ${NGINX ? 'nginx (docker-compose.nginx.yml)' : 'the gateway'} on ${baseUrl}`);
  capture(compose.command, [...compose.base, 'down', '-v', '--remove-orphans']); // a previous run's leftovers
  if (NGINX && NO_BUILD && (await runInherit(compose.command, [...compose.base, 'build', 'gateway'], state.env)) !== 0) {
    console.error('test:compose: the nginx image did not build');
    return 1;
  }

  const upCode = await up(compose, ['up', '-d', ...(NO_BUILD ? [] : ['--build'])]);
  if (upCode !== 0) {
    console.error('test:compose: the stack did not become healthy');
    await printLogs(compose);
    return 1;
  }

  log('the stack is healthy; the client-address test, with the production rate limits');
  try {
    testClientAddresses({
      docker: DOCKER,
      root,
      // Compose's network name: the project name as Compose normalises it, then the network's.
      network: `${PROJECT.toLowerCase().replace(/[^a-z0-9_-]/g, '')}_edge`,
      // Any image with node will do as a client; the migration job's is built in every variant.
      image: `localhost/course-platform/migrate:${process.env.IMAGE_TAG || 'local'}`,
      origin: 'http://gateway:3000',
      log: (message) => log(`  ${message}`),
    });
    log('client-address test passed');
  } catch (error) {
    console.error(`test:compose: the client-address test FAILED: ${error instanceof Error ? error.message : error}`);
    await printLogs(compose);
    return 1;
  }

  log('recreating the auth server with the suite\'s rate limits (tools/containers/test-compose.e2e-limits.yml says why)');
  const withLimits = { ...compose, base: [...compose.base, '-f', E2E_LIMITS] };
  if ((await up(withLimits, ['up', '-d', '--no-build', '--no-deps', 'auth-server'])) !== 0) {
    console.error('test:compose: the auth server did not come back healthy');
    await printLogs(compose);
    return 1;
  }

  log(`running apps/platform-e2e against ${baseUrl}`);
  // --forceExit: the stack outlives the suite here (it is removed after jest), so connections
  // kept alive to it would hold jest open; against the processes the global teardown stops the
  // platform first, which closes them.
  const jest = [join(root, 'node_modules/jest/bin/jest.js'), '-c', join(root, 'apps/platform-e2e/jest.config.cjs'), '--forceExit', ...JEST_ARGS];
  const code = await runInherit(process.execPath, jest, { ...process.env, E2E_BASE_URL: baseUrl });
  if (code !== 0) await printLogs(compose);
  log(`the end-to-end suite exited with ${code}`);
  const containersFine = checkServiceContainers(compose);
  return code !== 0 ? code : containersFine ? 0 : 1;
}

/** The services docker-compose.yml gives a memory limit (tools/containers/src/compose-rules.ts). */
const LIMITED_SERVICES = ['auth-server', 'resource-server', 'gateway'];

/**
 * After the suite: each service container still the one that started (no restart, no OOM kill),
 * under the memory limit docker-compose.yml gives it, and what it holds now (docker stats).
 * @param {Compose} compose
 * @returns {boolean}
 */
function checkServiceContainers(compose) {
  let fine = true;
  for (const service of LIMITED_SERVICES) {
    const id = capture(compose.command, [...compose.base, 'ps', '-q', service]).stdout.trim();
    const [limit, oomKilled, restarts] = capture(DOCKER, ['inspect', '--format', '{{.HostConfig.Memory}}|{{.State.OOMKilled}}|{{.RestartCount}}', id]).stdout.trim().split('|');
    const usage = capture(DOCKER, ['stats', '--no-stream', '--format', '{{.MemUsage}}', id]).stdout.trim();
    const problems = [
      ...(Number(limit) > 0 ? [] : ['no memory limit applied']),
      ...(oomKilled === 'false' ? [] : ['killed for memory']),
      ...(restarts === '0' ? [] : [`restarted ${restarts} time(s)`]),
    ];
    log(`${service}: memory ${usage || 'unknown'} (limit ${(Number(limit) / 2 ** 20).toFixed(0)} MiB)${problems.length ? `: ${problems.join(', ')}` : ''}`);
    if (problems.length) fine = false;
  }
  if (!fine) console.error('test:compose: a service container did not hold (above)');
  return fine;
}

/**
 * `up` and wait until every service is healthy (Compose v2: --wait; 1.29: polled here).
 * @param {Compose} compose
 * @param {string[]} args
 */
async function up(compose, args) {
  const upArgs = [...args];
  if (compose.v2) {
    upArgs.splice(1, 0, '--wait');
    if (capture(compose.command, [...compose.prefix, 'up', '--help']).stdout.includes('--wait-timeout')) upArgs.splice(2, 0, '--wait-timeout', String(WAIT_SECONDS));
  }
  const code = await runInherit(compose.command, [...compose.base, ...upArgs], state.env);
  if (code !== 0 || compose.v2) return code;
  try {
    await waitHealthy(compose);
    return 0;
  } catch (error) {
    console.error(`test:compose: ${error instanceof Error ? error.message : error}`);
    return 1;
  }
}

for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM'])) {
  process.on(signal, () => {
    if (state.stopping) return;
    state.stopping = true;
    state.child?.kill(signal);
    void teardown().then(() => process.exit(130));
  });
}

main()
  .then(async (code) => {
    await teardown();
    process.exit(code);
  })
  .catch(async (error) => {
    console.error(`test:compose: ${error instanceof Error ? error.stack : error}`);
    await teardown();
    process.exit(1);
  });

#!/usr/bin/env node
// `npm start`: the whole platform behind one origin, with one command.
//   Without DATABASE_URL: embedded mode, an embedded PostgreSQL per service under .data/.
//   With DATABASE_URL (a server URL): a database per service on that server.
// Options: --no-build skips `nx build` (uses what is in dist/).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareServerDatabases, startEmbeddedDatabases, stopDatabases } from './databases.mjs';
import { acquireDataLock } from './lock.mjs';
import { relayEventBus, startChild, stopChild, waitForMessage, waitUntilListening } from './processes.mjs';
import { loadOrCreateSecrets } from './secrets.mjs';
import { EMBEDDED_SERVICE_NODE_ARGS, GATEWAY, SERVICE_NODE_ARGS, existingServices, mainOf, portOf, serviceProcessEnv } from './services.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const env = process.env;
// PLATFORM_DATA_DIR: where the embedded mode keeps its data (tests point it at a temporary folder).
const dataDir = env.PLATFORM_DATA_DIR ? resolve(env.PLATFORM_DATA_DIR) : join(root, '.data');
const embedded = !env.DATABASE_URL;
const nodeArgs = embedded ? EMBEDDED_SERVICE_NODE_ARGS : SERVICE_NODE_ARGS;
const host = env.HOST || '127.0.0.1';
const gatewayPort = Number(env.PORT || 3000);
const publicBaseUrl = env.PUBLIC_BASE_URL || `http://127.0.0.1:${gatewayPort}`;
const serviceUrl = (service) => `http://127.0.0.1:${portOf(service)}`;

const state = { databases: {}, services: [], gateway: undefined, stopping: false, releaseLock: () => {} };

function nxBin() {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve('nx/package.json', { paths: [root] });
  return join(dirname(packageJson), require(packageJson).bin.nx);
}

function build(services) {
  const projects = [...services.map((service) => service.project), GATEWAY.project, 'embedded-postgres'];
  console.log(`Building ${projects.join(', ')} (cached by Nx when unchanged)...`);
  const result = spawnSync(
    process.execPath,
    [nxBin(), 'run-many', '-t', 'build', '-p', ...projects],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error('the build failed');
}

function introspectionSecret() {
  if (embedded) return loadOrCreateSecrets(join(dataDir, 'secrets.json')).introspectionClientSecret;
  if (!env.INTROSPECTION_CLIENT_SECRET) {
    throw new Error('INTROSPECTION_CLIENT_SECRET must be set when DATABASE_URL is (it is generated only in the embedded mode)');
  }
  return env.INTROSPECTION_CLIENT_SECRET;
}

/** What every service is told: its own port and database, and where the others are. */
function commonEnv(services, secret) {
  const shared = { ...env, HOST: host, PUBLIC_BASE_URL: publicBaseUrl, INTROSPECTION_CLIENT_SECRET: secret };
  for (const service of services) {
    shared[service.portVar] = String(portOf(service));
    shared[service.urlVar] = env[service.urlVar] || serviceUrl(service);
  }
  shared.EMBEDDED_MODE = String(embedded);
  if (embedded && !env.OIDC_SIGNING_KEYS && !env.OIDC_SIGNING_KEYS_FILE) {
    mkdirSync(join(dataDir, 'auth'), { recursive: true });
    shared.OIDC_SIGNING_KEYS_FILE = join(dataDir, 'auth', 'signing-keys.json');
  }
  return shared;
}

async function startServices(services, secret) {
  const shared = commonEnv(services, secret);
  const children = services.map((service) => {
    const serviceEnv = serviceProcessEnv({ ...shared, DATABASE_URL: state.databases[service.name].url });
    const child = startChild(service.project, mainOf(root, service.project), serviceEnv, root, nodeArgs);
    watchForCrash(child);
    return child;
  });
  state.services.push(...children);
  relayEventBus(children);
  // Each service says so once listen() has returned, after its own start-up log lines.
  await Promise.all(
    children.flatMap((child, i) => [waitUntilListening(child, '127.0.0.1', portOf(services[i])), waitForMessage(child, 'listening')]),
  );
}

async function startGateway(services) {
  const upstreams = Object.fromEntries(services.map((service) => [service.urlVar, env[service.urlVar] || serviceUrl(service)]));
  const gatewayEnv = serviceProcessEnv({ ...env, ...upstreams, HOST: host, PORT: String(gatewayPort), PUBLIC_BASE_URL: publicBaseUrl, LOG_LEVEL: env.LOG_LEVEL || 'warn' });
  state.gateway = startChild(GATEWAY.name, mainOf(root, GATEWAY.project), gatewayEnv, root, nodeArgs);
  watchForCrash(state.gateway);
  // The gateway says so once listen() has returned, i.e. after its own "listening" log line:
  // the banner must come after everything the platform prints while starting.
  await Promise.all([
    waitUntilListening(state.gateway, '127.0.0.1', gatewayPort),
    waitForMessage(state.gateway, 'listening'),
  ]);
}

/** The demo accounts exist when the services seed them (the embedded mode by default). */
function demoDataSeeded() {
  if (env.NODE_ENV === 'production') return false;
  if (env.SEED_DEMO_DATA !== undefined) return env.SEED_DEMO_DATA === 'true' || env.SEED_DEMO_DATA === '1';
  return embedded;
}

/**
 * The last thing `npm start` prints (the services log nothing more once they listen, unless a
 * request comes): the services, then the origin and the demo account, the two things a person
 * needs, at the bottom of the terminal.
 */
function printBanner(services) {
  const lines = [
    '',
    ...services.map((service) => `  ${service.project.padEnd(16)} ${serviceUrl(service)}  (database ${redact(state.databases[service.name].url)})`),
    `  ${'gateway'.padEnd(16)} http://${host}:${gatewayPort}`,
  ];
  if (embedded) lines.push(`  Embedded mode: data in ${dataDir}`);
  lines.push('', `The platform is up: ${publicBaseUrl}`);
  if (demoDataSeeded()) lines.push('  demo account: demo@academy.test / demo-password');
  lines.push('  Stop with Ctrl-C.', '');
  console.log(lines.join('\n'));
}

function redact(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

function watchForCrash(child) {
  child.once('exit', (code, signal) => {
    if (state.stopping) return;
    console.error(`${child.serviceName} exited unexpectedly (${signal ?? `code ${code}`}); stopping the platform.`);
    void shutdown(1);
  });
}

async function shutdown(exitCode) {
  if (state.stopping) return;
  state.stopping = true;
  if (state.gateway) await stopChild(state.gateway);
  await Promise.all(state.services.map(stopChild));
  await stopDatabases(state.databases);
  state.releaseLock();
  process.exit(exitCode);
}

async function main() {
  const services = existingServices(root);
  if (!process.argv.includes('--no-build')) build(services);
  const runnable = services.filter((service) => existsSync(mainOf(root, service.project)));
  if (embedded) state.releaseLock = acquireDataLock(join(dataDir, 'launcher.pid'));
  const secret = introspectionSecret();
  console.log(embedded ? 'Starting the embedded PostgreSQL and migrating...' : 'Preparing the databases on DATABASE_URL...');
  state.databases = embedded ? await startEmbeddedDatabases(root, runnable, dataDir) : await prepareServerDatabases(root, runnable);
  await startServices(runnable, secret);
  await startGateway(runnable);
  printBanner(runnable);
}

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void shutdown(0));

main().catch(async (error) => {
  console.error(`npm start failed: ${error instanceof Error ? error.message : error}`);
  await shutdown(1);
});

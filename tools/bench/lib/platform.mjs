// Starts what the bench measures, each service as its own `node dist/apps/<app>/main.js` with
// the environment, V8 flags and malloc settings tools/platform/start.mjs would give it (so the pid measured is the service's
// own), pinned to the services' core; plus panva's oidc-provider. Stops all of it.
import { execFileSync, fork, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { prepareServerDatabases } from '../../platform/databases.mjs';
import { EVENT_BUS_BRIDGE_ENV, relayEventBus, waitUntilListening } from '../../platform/processes.mjs';
import { SERVICE_NODE_ARGS, existingServices, mainOf, serviceProcessEnv } from '../../platform/services.mjs';
import generateEnv from '../../containers/generate-env.cjs';
import { createFreshDatabases, freePort } from '../../platform/fresh-databases.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(here, '../../..');
const PROBE = join(here, '../probe.cjs');

export function build() {
  const nx = join(ROOT, 'node_modules/nx/dist/bin/nx.js');
  const projects = ['auth-server', 'resource-server', 'gateway', 'embedded-postgres'];
  const result = spawnSync(process.execPath, [nx, 'run-many', '-t', 'build', '-p', ...projects, '--output-style=static'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`the build failed:\n${result.stdout}\n${result.stderr}`);
}

function startProcess(name, main, { env, cores, nodeArgs = [], args = [], logFile }) {
  const log = openSync(logFile, 'a');
  const execArgv = ['-r', PROBE, ...nodeArgs];
  const child = fork(main, args, {
    cwd: ROOT,
    env: { ...env, ...EVENT_BUS_BRIDGE_ENV },
    // taskset execs node: the child's pid is the service's own, and the IPC channel survives.
    execPath: cores ? 'taskset' : process.execPath,
    execArgv: cores ? ['-c', cores, process.execPath, ...execArgv] : execArgv,
    stdio: ['ignore', log, log, 'ipc'],
  });
  child.serviceName = name;
  child.logFile = logFile;
  return child;
}

function waitForExit(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Debian's nginx (apt-get install nginx-light), if this machine has it. */
export const NGINX_BINARY = ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].find((path) => existsSync(path));

/**
 * nginx in place of the gateway, as docker-compose.nginx.yml runs it: the configuration generated
 * from libs/route-table (tools/containers/nginx-conf.cjs), pointed at the bench's services. One
 * process (`master_process off`): the pid measured is the one that serves, as with the Node gateway;
 * the request path is the same as a worker's.
 */
function startNginx({ port, upstreams, cores, work, logFile }) {
  const conf = execFileSync(process.execPath, [
    join(ROOT, 'tools/containers/nginx-conf.cjs'), '--stdout', '--port', String(port),
    '--auth-server', upstreams.auth, '--resource-server', upstreams.resource,
  ], { encoding: 'utf8' }).replace('pid /tmp/nginx.pid;', `pid ${join(work, 'nginx.pid')};`);
  const confFile = join(work, 'nginx.conf');
  writeFileSync(confFile, conf);
  const log = openSync(logFile, 'a');
  const argv = [NGINX_BINARY, '-p', work, '-c', confFile, '-e', 'stderr', '-g', 'daemon off; master_process off;'];
  const child = spawn(cores ? 'taskset' : argv[0], cores ? ['-c', cores, ...argv] : argv.slice(1), { stdio: ['ignore', log, log] });
  child.serviceName = 'nginx';
  child.logFile = logFile;
  return child;
}

/** Disconnecting the IPC makes each service close and exit(0) (main.ts), which writes --cpu-prof output. */
async function stopProcess(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  if (child.connected) child.disconnect();
  if (await waitForExit(child, 15_000)) return;
  child.kill('SIGTERM');
  if (await waitForExit(child, 5_000)) return;
  child.kill('SIGKILL');
  await waitForExit(child, 5_000);
}

let probeId = 0;
/** The probe's counters and memory of a process (see probe.cjs). */
export function probe(child, { gc = false } = {}) {
  if (!child?.connected) return Promise.resolve(undefined);
  const id = ++probeId;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      resolve(undefined);
    }, 5_000);
    const onMessage = (message) => {
      if (message?.type !== 'bench-probe' || message.id !== id) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.send({ type: 'bench-probe', id, gc });
  });
}

/**
 * @param {{ pinning, profile?: { dir: string, services: string[] }, log: (line: string) => void, cimdCaFile?: string }} options
 *   cimdCaFile: the CA of the bench's own client web site (lib/document-site.mjs), which the auth server then trusts
 */
export async function startPlatform({ pinning, profile, log, cimdCaFile }) {
  const cores = pinning.enabled ? pinning.serverCores : undefined;
  const work = mkdtempSync(join(tmpdir(), 'bench-'));
  const logDir = join(work, 'logs');
  mkdirSync(logDir);
  const state = { work, logDir, children: {}, dropDatabases: undefined, embeddedDb: undefined };
  const suffix = randomBytes(4).toString('hex');
  const embedded = !process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL || undefined;

  const stop = async () => {
    const { gateway, op, floor, nginx, ...services } = state.children;
    // The floor script and nginx are not services: they end on SIGTERM rather than on the IPC channel closing.
    for (const child of [floor, nginx]) if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all([stopProcess(gateway), stopProcess(op), stopProcess(floor), stopProcess(nginx)]);
    await Promise.all(Object.values(services).map(stopProcess));
    await stopProcess(state.embeddedDb);
    if (state.dropDatabases) await state.dropDatabases().catch((error) => log(`dropping the bench databases failed: ${error.message}`));
  };

  try {
    const [gatewayPort, authPort, resourcePort, opPort, floorPort, nginxPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
    const services = existingServices(ROOT);
    let databaseUrls;
    let databaseDescription;
    if (embedded) {
      log('No DATABASE_URL: embedded PostgreSQL (PGlite) per service, in a process pinned with the services.');
      state.embeddedDb = startProcess('embedded-db', join(here, '../embedded-db.mjs'), {
        env: { ...process.env },
        cores,
        args: [ROOT, join(work, 'data')],
        logFile: join(logDir, 'embedded-db.log'),
      });
      databaseUrls = await new Promise((resolve, reject) => {
        state.embeddedDb.once('exit', (code) => reject(new Error(`the embedded databases exited (${code}); see ${logDir}`)));
        state.embeddedDb.on('message', (message) => {
          if (message?.type === 'embedded-db-ready') resolve(message.urls);
        });
      });
      databaseDescription = 'embedded PostgreSQL (PGlite), pool size 1 per service';
    } else {
      const databases = await createFreshDatabases(process.env.DATABASE_URL, 'bench', suffix);
      state.dropDatabases = databases.drop;
      log(`DATABASE_URL: fresh databases ${Object.values(databases.names).join(', ')} (dropped afterwards); migrating...`);
      await prepareServerDatabases(ROOT, services, {
        ...process.env,
        AUTH_DATABASE_URL: databases.urls.auth,
        RESOURCE_DATABASE_URL: databases.urls.resource,
      });
      databaseUrls = databases.urls;
      const version = await serverVersion(process.env.DATABASE_URL);
      databaseDescription = `PostgreSQL server of DATABASE_URL (${version}), fresh databases, pool size 10 per service`;
    }

    const publicBaseUrl = `http://127.0.0.1:${gatewayPort}`;
    const urls = {
      auth: `http://127.0.0.1:${authPort}`,
      resource: `http://127.0.0.1:${resourcePort}`,
      gateway: publicBaseUrl,
      op: `http://127.0.0.1:${opPort}`,
      floor: undefined,
      nginx: undefined,
    };
    const secrets = {
      introspection: randomBytes(24).toString('base64url'),
      opIntrospection: randomBytes(24).toString('base64url'),
      opClientCredentials: randomBytes(24).toString('base64url'),
    };
    // A private RS256 JWK made as the stack's .env is (see generate-env.cjs for why it is made that way).
    const jwk = generateEnv.generateSigningJwk();
    const base = { ...process.env };
    for (const name of ['DATABASE_URL', 'AUTH_DATABASE_URL', 'RESOURCE_DATABASE_URL', 'REDIS_URL', 'OIDC_SIGNING_KEYS_FILE']) delete base[name];
    const serviceEnv = {
      ...base,
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: publicBaseUrl,
      AUTH_PORT: String(authPort),
      RESOURCE_PORT: String(resourcePort),
      AUTH_SERVER_URL: urls.auth,
      RESOURCE_SERVER_URL: urls.resource,
      INTROSPECTION_CLIENT_SECRET: secrets.introspection,
      EMBEDDED_MODE: String(embedded),
      SEED_DEMO_DATA: 'true',
      OIDC_SIGNING_KEYS: JSON.stringify([jwk]),
      // Codes are prepared before the timed part, possibly minutes before.
      AUTHORIZATION_CODE_TTL_SECONDS: '3600',
      // One loopback load generator plays thousands of clients: the limits stay on (their cost
      // is part of every figure) but sized out of the way.
      RATE_LIMIT_REGISTRATION_PER_IP: '1000000000',
      RATE_LIMIT_TOKEN_PER_IP: '1000000000',
      RATE_LIMIT_TOKEN_FAILURES_PER_IP: '1000000000',
      RATE_LIMIT_TOKEN_PER_GRANT: '1000000000',
      RATE_LIMIT_TOKEN_PER_USER: '1000000000',
      RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: '1000000000',
      RATE_LIMIT_INTROSPECTION_PER_CALLER: '1000000000',
      RATE_LIMIT_WRITES_PER_USER: '1000000000',
      RATE_LIMIT_ANONYMOUS_PER_IP: '1000000000',
      // Client ID metadata documents from the bench's own site on 127.0.0.1 (development only).
      ...(cimdCaFile ? { CIMD_ALLOW_SPECIAL_USE_HOSTS: 'true', CIMD_EXTRA_CA_FILE: cimdCaFile } : {}),
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    };
    const nodeArgsFor = (name) => [
      ...(profile?.services.includes(name)
        ? ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', profile.dir, '--cpu-prof-name', `${name}.cpuprofile`]
        : []),
      ...(process.env[`BENCH_NODE_ARGS_${name.toUpperCase().replaceAll('-', '_')}`]?.split(' ').filter(Boolean) ?? []),
    ];

    const serviceChildren = [];
    for (const service of services) {
      const child = startProcess(service.project, mainOf(ROOT, service.project), {
        env: serviceProcessEnv({ ...serviceEnv, DATABASE_URL: databaseUrls[service.name] }),
        cores,
        nodeArgs: [...SERVICE_NODE_ARGS, ...nodeArgsFor(service.project)],
        logFile: join(logDir, `${service.project}.log`),
      });
      state.children[service.name] = child;
      serviceChildren.push(child);
    }
    // Without Redis the services' in-process event bus is bridged through the parent, as npm start does.
    if (!redisUrl) relayEventBus(serviceChildren);
    await Promise.all([
      waitUntilListening(state.children.auth, '127.0.0.1', authPort),
      waitUntilListening(state.children.resource, '127.0.0.1', resourcePort),
    ]);

    state.children.gateway = startProcess('gateway', mainOf(ROOT, 'gateway'), {
      env: serviceProcessEnv({ ...base, HOST: '127.0.0.1', PORT: String(gatewayPort), AUTH_SERVER_URL: urls.auth, RESOURCE_SERVER_URL: urls.resource, LOG_LEVEL: 'warn' }),
      cores,
      nodeArgs: [...SERVICE_NODE_ARGS, ...nodeArgsFor('gateway')],
      logFile: join(logDir, 'gateway.log'),
    });
    state.children.op = startProcess('oidc-provider', join(here, '../oidc-provider-server.mjs'), {
      env: {
        ...base,
        NODE_ENV: 'production',
        PORT: String(opPort),
        OP_RESOURCE: publicBaseUrl,
        OP_SIGNING_JWK: JSON.stringify(jwk),
        OP_INTROSPECTION_CLIENT_SECRET: secrets.opIntrospection,
        OP_CC_CLIENT_SECRET: secrets.opClientCredentials,
      },
      cores,
      nodeArgs: nodeArgsFor('oidc-provider'),
      logFile: join(logDir, 'oidc-provider.log'),
    });
    // The physical floor of the anonymous course list: a bare Fastify route with the same SQL over
    // pg. Not in embedded mode: PGlite serves one session at a time, which the service already holds.
    if (!embedded && existsSync(join(here, '../floor-server.mjs'))) {
      state.children.floor = startProcess('floor', join(here, '../floor-server.mjs'), {
        env: { ...base, DATABASE_URL: databaseUrls.resource, PORT: String(floorPort), HOST: '127.0.0.1' },
        cores,
        nodeArgs: nodeArgsFor('floor'),
        logFile: join(logDir, 'floor.log'),
      });
      urls.floor = `http://127.0.0.1:${floorPort}`;
    }
    if (NGINX_BINARY) {
      state.children.nginx = startNginx({
        port: nginxPort,
        upstreams: { auth: `127.0.0.1:${authPort}`, resource: `127.0.0.1:${resourcePort}` },
        cores,
        work,
        logFile: join(logDir, 'nginx.log'),
      });
      urls.nginx = `http://127.0.0.1:${nginxPort}`;
    }
    await Promise.all([
      ...(state.children.nginx ? [waitUntilListening(state.children.nginx, '127.0.0.1', nginxPort)] : []),
      waitUntilListening(state.children.gateway, '127.0.0.1', gatewayPort),
      waitUntilListening(state.children.op, '127.0.0.1', opPort),
      ...(state.children.floor ? [waitUntilListening(state.children.floor, '127.0.0.1', floorPort)] : []),
    ]);

    return {
      embedded,
      redis: Boolean(redisUrl),
      databaseDescription,
      cacheDescription: redisUrl ? 'Redis of REDIS_URL (shared cache layer) + in-process LRU' : 'in-process LRU only (no REDIS_URL)',
      urls,
      secrets,
      publicBaseUrl,
      children: state.children,
      embeddedDb: state.embeddedDb,
      pid: (name) => state.children[name]?.pid,
      work,
      logDir,
      stop,
    };
  } catch (error) {
    const logs = Object.values(state.children)
      .map((child) => `--- ${child.serviceName}\n${tail(child.logFile)}`)
      .join('\n');
    await stop();
    throw new Error(`${error.message}\n${logs}`);
  }
}

async function serverVersion(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SHOW server_version');
    return `PostgreSQL ${rows[0].server_version.split(' ')[0]}`;
  } finally {
    await client.end();
  }
}

export function tail(file, chars = 3000) {
  try {
    return readFileSync(file, 'utf8').slice(-chars);
  } catch {
    return '';
  }
}

export function removeWorkDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

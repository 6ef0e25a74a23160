import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { freePort } from '../../../../tools/test-support/free-port';

const root = resolve(__dirname, '../../../..');

export interface RunningPlatform {
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Builds the services and starts them with the launcher of `npm start`, on free ports.
 * `extraEnv` is added to the services' environment last (test-only settings of the caller).
 */
export async function startPlatform(extraEnv: NodeJS.ProcessEnv = {}): Promise<RunningPlatform> {
  build();
  const [port, authPort, resourcePort] = await Promise.all([freePort(), freePort(), freePort()]);
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-e2e-'));
  const databases = await createDatabases();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: String(port),
    AUTH_PORT: String(authPort),
    RESOURCE_PORT: String(resourcePort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    PLATFORM_DATA_DIR: dataDir,
    INTROSPECTION_CLIENT_SECRET: randomBytes(24).toString('base64url'),
    SEED_DEMO_DATA: 'true',
    LOG_LEVEL: 'warn',
    // The suites register hundreds of clients from 127.0.0.1: limits on, but out of their way.
    RATE_LIMIT_REGISTRATION_PER_IP: '100000',
    RATE_LIMIT_TOKEN_PER_IP: '100000',
    RATE_LIMIT_TOKEN_FAILURES_PER_IP: '100000',
    RATE_LIMIT_TOKEN_PER_GRANT: '100000',
    RATE_LIMIT_TOKEN_PER_USER: '100000',
    RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: '100000',
    RATE_LIMIT_WRITES_PER_USER: '100000',
    RATE_LIMIT_ANONYMOUS_PER_IP: '100000',
    LOGIN_FREE_FAILURES_PER_IP: '100000',
    // The fuzzer signs in with wrong passwords too: the demo account must not end up locked for the other suites.
    LOGIN_FREE_FAILURES_PER_ACCOUNT: '100000',
    ...databases.env,
    ...extraEnv,
  };
  const child = spawn(process.execPath, [join(root, 'tools/platform/start.mjs'), '--no-build'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForBanner(child);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async stop() {
      await stopProcess(child);
      await databases.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function build(): void {
  const nx = join(root, 'node_modules/nx/dist/bin/nx.js');
  const projects = ['auth-server', 'resource-server', 'gateway', 'embedded-postgres'];
  const result = spawnSync(process.execPath, [nx, 'run-many', '-t', 'build', '-p', ...projects, '--output-style=static'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('building the services failed');
}

/** With DATABASE_URL (a real server): a fresh database per service, dropped afterwards. */
async function createDatabases(): Promise<{ env: NodeJS.ProcessEnv; drop(): Promise<void> }> {
  const server = process.env['DATABASE_URL'];
  if (!server) return { env: {}, drop: async () => undefined };
  const suffix = randomBytes(4).toString('hex');
  const names = { AUTH_DATABASE_URL: `e2e_auth_${suffix}`, RESOURCE_DATABASE_URL: `e2e_resource_${suffix}` };
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  const env: NodeJS.ProcessEnv = {};
  for (const [variable, name] of Object.entries(names)) {
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(server);
    url.pathname = `/${name}`;
    env[variable] = url.toString();
  }
  await admin.end();
  return {
    env,
    async drop() {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      for (const name of Object.values(names)) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

function waitForBanner(child: ChildProcess): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error('the platform did not start within 120 s')), 120_000);
    let up = false;
    const onData = (chunk: Buffer) => {
      if (up) {
        reportTrouble(chunk);
        return;
      }
      output += chunk.toString();
      if (output.includes('The platform is up')) {
        up = true;
        clearTimeout(timer);
        resolvePromise();
      }
    };
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(new Error(`${error.message}\n${output.slice(-4000)}`));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => fail(new Error(`the launcher exited with ${code}`)));
  });
}

/**
 * Once the platform is up, what it says is dropped except trouble: a line that is not a JSON log
 * line (a crash, the launcher saying a service exited) or one at level error or fatal. Without
 * this, a service dying in the middle of the run would leave only ECONNREFUSED in the tests.
 */
function reportTrouble(chunk: Buffer): void {
  for (const line of chunk.toString().split('\n')) {
    if (line.trim() === '') continue;
    let level: unknown;
    try {
      level = (JSON.parse(line) as { level?: unknown }).level;
    } catch {
      level = undefined;
    }
    if (level === undefined || level === 'error' || level === 'fatal' || (typeof level === 'number' && level >= 50)) {
      process.stderr.write(`[platform] ${line.slice(0, 2000)}\n`);
    }
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolvePromise();
    });
    child.kill('SIGTERM');
  });
}


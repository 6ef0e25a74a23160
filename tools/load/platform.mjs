// The platform under load: started with the launcher of `npm start` on free loopback ports,
// with a fresh data directory (embedded PostgreSQL) or fresh databases on DATABASE_URL, and
// Redis when REDIS_URL is set. Stopped (and its databases dropped) by stop().
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFreshDatabases } from '../platform/fresh-databases.mjs';
import { launchPlatform } from '../platform/launch.mjs';

/** Limits sized for one loopback client doing the work of many (the load is not about them). */
const GENEROUS_LIMITS = {
  RATE_LIMIT_REGISTRATION_PER_IP: '1000000',
  RATE_LIMIT_TOKEN_PER_IP: '1000000',
  RATE_LIMIT_TOKEN_FAILURES_PER_IP: '1000000',
  RATE_LIMIT_TOKEN_PER_GRANT: '1000000',
  RATE_LIMIT_TOKEN_PER_USER: '1000000',
  RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: '1000000',
  RATE_LIMIT_INTROSPECTION_PER_CALLER: '1000000',
  RATE_LIMIT_WRITES_PER_USER: '1000000',
  RATE_LIMIT_ANONYMOUS_PER_IP: '1000000',
  LOGIN_FREE_FAILURES_PER_IP: '1000000',
};

export async function startPlatform(root, { build = true } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-load-'));
  const secret = randomBytes(32).toString('base64url');
  // The embedded mode reads the introspection secret from the data directory.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'secrets.json'), JSON.stringify({ introspectionClientSecret: secret }), { mode: 0o600 });
  const databases = process.env.DATABASE_URL ? await createFreshDatabases(process.env.DATABASE_URL, 'load') : undefined;
  let platform;
  try {
    platform = await launchPlatform(root, {
      build,
      env: {
        ...GENEROUS_LIMITS,
        NODE_ENV: 'test',
        PLATFORM_DATA_DIR: dataDir,
        INTROSPECTION_CLIENT_SECRET: secret,
        SEED_DEMO_DATA: 'true',
        LOG_LEVEL: 'warn',
        ...(databases ? { AUTH_DATABASE_URL: databases.urls.auth, RESOURCE_DATABASE_URL: databases.urls.resource } : {}),
      },
    });
  } catch (error) {
    await databases?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    baseUrl: platform.origin,
    introspection: { clientId: 'resource-server', clientSecret: secret },
    launcherPid: platform.launcher.pid,
    /** The last lines the services wrote (for a failure report). */
    output: platform.output,
    async stop() {
      await platform.stop();
      await databases?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The launcher's children (the services, the gateway, the embedded databases) and their names. */
export function childProcesses(pid) {
  let children = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.map((child) => {
    let name = `pid ${child}`;
    try {
      const command = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' ');
      const app = /dist\/apps\/([\w-]+)\/main\.js/.exec(command);
      name = app ? app[1] : /embedded|pglite/i.test(command) ? `embedded-postgres ${child}` : command.slice(0, 60);
    } catch {
      // gone
    }
    return { pid: child, name };
  });
}

/** Resident set size in MiB, from /proc (Linux), or undefined when the process is gone. */
export function rssMiB(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findWorkspaceRoot, runMigrations, startEmbeddedPostgres } from '@platform/embedded-postgres';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';

export interface CliDatabase {
  prisma: PrismaClient;
  /** Where, for the operator; no password. */
  description: string;
  close(): Promise<void>;
}

/** `postgresql://host/app` → `postgresql://host/app_resource`, as the launcher derives it (tools/platform/databases.mjs). */
export function derivedResourceDatabaseUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  const base = decodeURIComponent(url.pathname.slice(1)) || 'postgres';
  url.pathname = `/${base}_resource`;
  return url.toString();
}

function redact(raw: string): string {
  const url = new URL(raw);
  if (url.password) url.password = '***';
  return url.toString();
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The launcher's lock on its data directory (tools/platform/lock.mjs): PGlite serves one process. */
function acquireLauncherLock(dataDir: string): () => void {
  const file = join(dataDir, 'launcher.pid');
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, 'utf8'));
    if (pid && pid !== process.pid && isRunning(pid)) {
      throw new Error(`the platform (pid ${pid}) is running on ${dataDir}: stop it first (the embedded database serves one process), or set RESOURCE_DATABASE_URL`);
    }
  }
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

/**
 * The resource server's database, found the way the launcher finds it: RESOURCE_DATABASE_URL as
 * is; else DATABASE_URL plus `_resource`; else the embedded PostgreSQL in PLATFORM_DATA_DIR
 * (default .data/) at resource/pg, migrated first, as `npm start` does.
 */
export async function openResourceDatabase(env: Record<string, string | undefined>): Promise<CliDatabase> {
  const explicit = env['RESOURCE_DATABASE_URL'] || (env['DATABASE_URL'] ? derivedResourceDatabaseUrl(env['DATABASE_URL']) : undefined);
  if (explicit) {
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: explicit, max: 2, connectionTimeoutMillis: 5_000 }) });
    return { prisma, description: redact(explicit), close: () => prisma.$disconnect() };
  }
  const dataRoot = env['PLATFORM_DATA_DIR'] || join(findWorkspaceRoot(), '.data');
  const release = acquireLauncherLock(dataRoot);
  try {
    const dataDir = join(dataRoot, 'resource', 'pg');
    mkdirSync(dataDir, { recursive: true });
    const server = await startEmbeddedPostgres({ dataDir });
    try {
      await runMigrations('resource', server.url);
    } catch (error) {
      await server.stop();
      throw error;
    }
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: server.url, max: 1 }) });
    return {
      prisma,
      description: `embedded database in ${dataDir}`,
      close: async () => {
        await prisma.$disconnect();
        await server.stop();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

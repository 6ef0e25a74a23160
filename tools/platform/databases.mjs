// One database per service: an embedded PostgreSQL (PGlite) each, with its data under
// <data dir>/<service>/pg, or a database of its own on the real server of DATABASE_URL.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import v8 from 'node:v8';
import pg from 'pg';

/** The embedded-postgres lib, compiled to CommonJS by its `build` target. */
function embeddedPostgresLib(root) {
  return createRequire(import.meta.url)(join(root, 'dist/libs/embedded-postgres/index.js'));
}

/**
 * PGlite's 9 MB of PostgreSQL wasm, compiled by V8's baseline compiler (Liftoff) only. With the
 * default tier-up to TurboFan, the optimising compiler's work memory stayed resident in the
 * process: two PGlite instances measured ~270 MB RSS with tier-up and ~210 MB without, at the
 * same CPU time for 19,500 queries (5.3-5.9 s either way). Must run before PGlite compiles.
 */
function compileWasmWithBaselineOnly() {
  v8.setFlagsFromString('--liftoff-only');
}

/** Starts and migrates an embedded PostgreSQL per service; returns { [name]: { url, stop } }. */
export async function startEmbeddedDatabases(root, services, dataRoot = join(root, '.data')) {
  compileWasmWithBaselineOnly();
  const { startEmbeddedPostgres, runMigrations } = embeddedPostgresLib(root);
  const databases = {};
  try {
    for (const service of services) {
      const dataDir = join(dataRoot, service.name, 'pg');
      mkdirSync(dataDir, { recursive: true });
      const server = await startEmbeddedPostgres({ dataDir });
      databases[service.name] = server;
      await runMigrations(service.schema, server.url);
    }
  } catch (error) {
    await stopDatabases(databases);
    throw error;
  }
  return databases;
}

export async function stopDatabases(databases) {
  await Promise.allSettled(Object.values(databases).map((database) => database.stop?.()));
}

/** `postgresql://host/app` + auth -> `postgresql://host/app_auth`. */
export function deriveDatabaseUrl(serverUrl, serviceName) {
  const url = new URL(serverUrl);
  const base = decodeURIComponent(url.pathname.slice(1)) || 'postgres';
  url.pathname = `/${base}_${serviceName}`;
  return url.toString();
}

async function ensureDatabaseExists(serverUrl, databaseUrl) {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}

/** Per-service databases on a real server, created when derived and missing, then migrated. */
export async function prepareServerDatabases(root, services, env = process.env) {
  const { runMigrations } = embeddedPostgresLib(root);
  const databases = {};
  for (const service of services) {
    const explicit = env[service.databaseUrlVar];
    const url = explicit || deriveDatabaseUrl(env.DATABASE_URL, service.name);
    if (!explicit) await ensureDatabaseExists(env.DATABASE_URL, url);
    await runMigrations(service.schema, url);
    databases[service.name] = { url };
  }
  return databases;
}

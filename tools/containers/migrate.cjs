#!/usr/bin/env node
// The migration job (tools/containers/migrate.Dockerfile, the `migrate` service of
// docker-compose.yml): for each service's schema, creates its database when missing and runs
// `prisma migrate deploy` on it (tools/prisma/cli.cjs). Exits non-zero on the first failure, so
// the services that wait for `service_completed_successfully` never start on an old schema.
//
//   AUTH_DATABASE_URL, RESOURCE_DATABASE_URL   the services' databases (both required)
//   MIGRATE_CREATE_DATABASES                   `true` (default): CREATE DATABASE when missing,
//                                              connected to the server's `postgres` database;
//                                              `false` when the databases are provisioned elsewhere
//   MIGRATE_CONNECT_TIMEOUT_SECONDS            how long to retry the first connection (default 60)
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');

const SCHEMAS = [
  { schema: 'auth', variable: 'AUTH_DATABASE_URL' },
  { schema: 'resource', variable: 'RESOURCE_DATABASE_URL' },
];

/**
 * A PostgreSQL URL with its password hidden, for logs.
 * @param {string} url
 */
function redact(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/**
 * The database a URL names, and the URL of the server's maintenance database.
 * @param {string} url
 * @returns {{ name: string, adminUrl: string }}
 */
function databaseOf(url) {
  const parsed = new URL(url);
  if (!/^postgres(ql)?:$/.test(parsed.protocol)) throw new Error(`not a PostgreSQL URL: ${redact(url)}`);
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!name) throw new Error(`no database name in ${redact(url)}`);
  parsed.pathname = '/postgres';
  return { name, adminUrl: parsed.toString() };
}

/**
 * `"name"`, with embedded quotes doubled (PostgreSQL identifier quoting).
 * @param {string} name
 */
function quoteIdentifier(name) {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * @typedef {{ schema: string, url: string, name: string, adminUrl: string }} Target
 */

/**
 * The plan: which URL each schema migrates, from the environment. Throws naming what is missing.
 * @param {Record<string, string | undefined>} env
 * @returns {{ createDatabases: boolean, connectTimeoutMs: number, targets: Target[] }}
 */
function planFromEnv(env) {
  const missing = SCHEMAS.filter(({ variable }) => !env[variable]).map(({ variable }) => variable);
  if (missing.length > 0) throw new Error(`${missing.join(' and ')} must be set`);
  const flag = (env.MIGRATE_CREATE_DATABASES ?? 'true').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(flag)) throw new Error('MIGRATE_CREATE_DATABASES: expected true or false');
  const timeout = Number(env.MIGRATE_CONNECT_TIMEOUT_SECONDS ?? 60);
  if (!Number.isFinite(timeout) || timeout < 0) throw new Error('MIGRATE_CONNECT_TIMEOUT_SECONDS: expected a number of seconds');
  return {
    createDatabases: flag === 'true' || flag === '1',
    connectTimeoutMs: timeout * 1000,
    targets: SCHEMAS.map(({ schema, variable }) => {
      const url = /** @type {string} */ (env[variable]);
      return { schema, url, ...databaseOf(url) };
    }),
  };
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @typedef {typeof import('pg')} Pg */

/**
 * @param {Pg} pg
 * @param {string} url
 * @param {number} timeoutMs
 */
async function connectWithRetry(pg, url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() >= deadline) throw error;
      console.log(`waiting for PostgreSQL at ${redact(url)}: ${error instanceof Error ? error.message : error}`);
      await sleep(1000);
    }
  }
}

/**
 * @param {Pg} pg
 * @param {Target} target
 * @param {number} timeoutMs
 */
async function ensureDatabase(pg, target, timeoutMs) {
  const client = await connectWithRetry(pg, target.adminUrl, timeoutMs);
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [target.name]);
    if (rowCount) {
      console.log(`database ${target.name} exists`);
      return;
    }
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(target.name)}`);
      console.log(`database ${target.name} created`);
    } catch (error) {
      // Another job created it in between: fine.
      if (/** @type {{ code?: string }} */ (error).code !== '42P04') throw error;
    }
  } finally {
    await client.end();
  }
}

/** @param {Target} target */
function migrateDeploy(target) {
  console.log(`prisma migrate deploy: ${target.schema} on ${redact(target.url)}`);
  const result = spawnSync(process.execPath, [path.join(root, 'tools/prisma/cli.cjs'), 'migrate-deploy', target.schema], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: target.url },
  });
  if (result.status !== 0) throw new Error(`migrate deploy of ${target.schema} failed (exit ${result.status ?? result.signal})`);
}

async function main() {
  const plan = planFromEnv(process.env);
  const pg = require('pg');
  for (const target of plan.targets) {
    if (plan.createDatabases) await ensureDatabase(pg, target, plan.connectTimeoutMs);
    migrateDeploy(target);
  }
  console.log('migrations applied');
}

if (require.main === module) {
  main().catch((error) => {
    console.error(`migrate: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  });
}

module.exports = { databaseOf, planFromEnv, quoteIdentifier, redact };

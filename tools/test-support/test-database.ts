import { runMigrations, startEmbeddedPostgres, type SchemaName } from '@platform/embedded-postgres';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Client } from 'pg';

export interface TestDatabase {
  /** URL of a freshly migrated database of its own. */
  url: string;
  kind: 'postgresql' | 'embedded';
  /** The pool size clients must use: the embedded PostgreSQL serves one connection at a time. */
  poolSize: number;
  /** Drops the database (real PostgreSQL) or stops the server (embedded). Idempotent. */
  drop(): Promise<void>;
}

const REAL_POOL_SIZE = 5;
const EMBEDDED_POOL_SIZE = 1;
const WORKSPACE_ROOT = join(__dirname, '../..');

async function onServer<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function once(action: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= action());
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Names the migrations of a schema as committed now: a template made from other migrations is never used. */
function migrationsHash(schema: SchemaName): string {
  const dir = join(WORKSPACE_ROOT, 'prisma', schema, 'migrations');
  const hash = createHash('sha256');
  const walk = (path: string): void => {
    for (const entry of readdirSync(path).sort()) {
      const child = join(path, entry);
      if (statSync(child).isDirectory()) walk(child);
      else hash.update(relative(dir, child)).update('\0').update(readFileSync(child)).update('\0');
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 12);
}

/**
 * The migrated template database of a schema on the real server, made once per set of
 * migrations (the first suite to need it migrates it, under an advisory lock the others wait on)
 * and kept for later runs: every test database is then a copy (`CREATE DATABASE … TEMPLATE`)
 * instead of a `prisma migrate deploy` of its own.
 */
async function realTemplate(schema: SchemaName, serverUrl: string): Promise<string> {
  const name = `test_template_${schema}_${migrationsHash(schema)}`;
  await onServer(serverUrl, async (client) => {
    // Session-level: released when this connection ends, also when a migration fails.
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return;
    // Migrated under another name, renamed once whole: a template that exists is complete.
    const building = `${name}_building`;
    await client.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${building}"`);
    await runMigrations(schema, databaseUrl(serverUrl, building));
    await client.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
  });
  return name;
}

async function createOnRealServer(schema: SchemaName, serverUrl: string): Promise<TestDatabase> {
  const template = await realTemplate(schema, serverUrl);
  // Random, lower-case, [a-z0-9_]: needs no quoting rules beyond the plain double quotes.
  const name = `test_${schema}_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  const drop = once(() => onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined));
  return { url: databaseUrl(serverUrl, name), kind: 'postgresql', poolSize: REAL_POOL_SIZE, drop };
}

/**
 * The migrated data directory of a schema for the embedded server, made once per set of
 * migrations in the system's temporary directory and kept for later runs. Built under a name
 * of its own and renamed once whole, so concurrent workers never see half of one (two may both
 * build it; one rename wins).
 */
async function embeddedTemplate(schema: SchemaName): Promise<string> {
  const dir = join(tmpdir(), 'course-platform-test-databases', `${schema}-${migrationsHash(schema)}`);
  if (existsSync(dir)) return dir;
  const building = `${dir}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  const server = await startEmbeddedPostgres({ dataDir: building });
  try {
    await runMigrations(schema, server.url);
  } finally {
    await server.stop();
  }
  try {
    renameSync(building, dir);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  return dir;
}

async function createEmbedded(schema: SchemaName): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), `test-${schema}-`));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  try {
    cpSync(await embeddedTemplate(schema), dataDir, { recursive: true });
    const server = await startEmbeddedPostgres({ dataDir });
    const drop = once(() => server.stop().finally(removeDataDir));
    return { url: server.url, kind: 'embedded', poolSize: EMBEDDED_POOL_SIZE, drop };
  } catch (error) {
    removeDataDir();
    throw error;
  }
}

/**
 * A fresh, migrated database for one test file: on the real PostgreSQL server of
 * DATABASE_URL when it is set (a copy of a migrated template database), else on an embedded
 * PostgreSQL started from a copy of a migrated data directory. Migrations run once per set of
 * migrations, not once per suite; the first suite of a run with new migrations pays for them
 * (allow it ~10 s in beforeAll: the migration CLI runs in a child process).
 */
export function createTestDatabase(schema: SchemaName): Promise<TestDatabase> {
  const serverUrl = process.env['DATABASE_URL'];
  return serverUrl ? createOnRealServer(schema, serverUrl) : createEmbedded(schema);
}

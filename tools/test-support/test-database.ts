import { runMigrations, startEmbeddedPostgres, type SchemaName } from '@platform/embedded-postgres';
import { randomBytes } from 'node:crypto';
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

async function onServer(serverUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function once(action: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= action());
}

async function createOnRealServer(schema: SchemaName, serverUrl: string): Promise<TestDatabase> {
  // Random, lower-case, [a-z0-9_]: needs no quoting rules beyond the plain double quotes.
  const name = `test_${schema}_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const drop = once(() => onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  try {
    await runMigrations(schema, url.toString());
  } catch (error) {
    await drop();
    throw error;
  }
  return { url: url.toString(), kind: 'postgresql', poolSize: REAL_POOL_SIZE, drop };
}

async function createEmbedded(schema: SchemaName): Promise<TestDatabase> {
  const server = await startEmbeddedPostgres();
  const drop = once(() => server.stop());
  try {
    await runMigrations(schema, server.url);
  } catch (error) {
    await drop();
    throw error;
  }
  return { url: server.url, kind: 'embedded', poolSize: EMBEDDED_POOL_SIZE, drop };
}

/**
 * A fresh, migrated database for one test file: on the real PostgreSQL server of
 * DATABASE_URL when it is set, else on an in-memory embedded PostgreSQL. Allow it ~10 s
 * (beforeAll timeout): the migration CLI runs in a child process.
 */
export function createTestDatabase(schema: SchemaName): Promise<TestDatabase> {
  const serverUrl = process.env['DATABASE_URL'];
  return serverUrl ? createOnRealServer(schema, serverUrl) : createEmbedded(schema);
}

import { Logger } from '@nestjs/common';
import { Pool, type QueryConfig, types } from 'pg';

/**
 * Injection token of the one pg pool of the process: Prisma runs on it (PrismaPg) and hot
 * paths send their own SQL through it, so both share the connection limit (1 in the
 * embedded mode, whose PostgreSQL serves one session at a time).
 */
export const PG_POOL = Symbol('PG_POOL');

const logger = new Logger('PgPool');

/**
 * Pools whose statements go unnamed: a pool of one connection is the embedded PostgreSQL's
 * (AuthConfig.database.poolSize), whose one session every connection shares. A statement a
 * closed connection prepared is still in that session, and pg, on a new connection, would
 * prepare it again and be refused ("prepared statement … already exists").
 */
const oneSessionPools = new WeakSet<Pool>();

export function createPgPool(database: { url: string; poolSize: number }): Pool {
  const pool = new Pool({ connectionString: database.url, max: database.poolSize, connectionTimeoutMillis: 5_000 });
  if (database.poolSize === 1) oneSessionPools.add(pool);
  // An idle connection that breaks (database restart) emits 'error' on the pool: without a
  // listener that would end the process. The next query takes a new connection.
  pool.on('error', (error) => logger.warn(`idle database connection lost: ${error.message}`));
  return pool;
}

const TIMESTAMP_OID = 1114;

/**
 * Prisma stores DateTime as `timestamp(3)` (no time zone) holding UTC. pg's default parser
 * reads such a value in the process's local zone; this one reads it as UTC. Per query, so
 * the pool's other users (Prisma has its own parsers) are unaffected.
 */
const utcTimestamps: QueryConfig['types'] = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP_OID ? (value: string) => new Date(`${value.replace(' ', 'T')}Z`) : types.getTypeParser(oid, format)) as never,
};

/** A parameter for a `timestamp(3)` column: UTC wall-clock text (PostgreSQL ignores the Z for this type). */
export function utc(date: Date): string {
  return date.toISOString();
}

/**
 * A statement of our own, sent under its name: pg prepares it once per connection (Parse), then
 * sends only Bind/Execute, and PostgreSQL keeps its plan (after five executions a generic one,
 * for these lookups by unique key). Parsing and planning a grant's CTE on every request was
 * PostgreSQL CPU on the same two cores as the services. The text of a name never
 * changes while the process runs (pg refuses a second text under one name); the columns it
 * returns are listed, so a migration that adds columns does not invalidate a prepared result.
 * Not on the embedded PostgreSQL (oneSessionPools).
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

export function statement(name: string, text: string): Statement {
  return { name, text };
}

/** One statement over the shared pool, timestamps read as UTC. */
export async function query<Row>(pool: Pool, { name, text }: Statement, values: readonly unknown[]): Promise<Row[]> {
  const result = await pool.query({ name: oneSessionPools.has(pool) ? undefined : name, text, values: values as unknown[], types: utcTimestamps });
  return result.rows as Row[];
}

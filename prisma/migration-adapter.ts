/**
 * The driver adapter the Prisma CLI uses for `migrate deploy`, `migrate dev` and `db push`.
 * Prisma 6 with `engine: 'js'` runs its wasm schema engine through this adapter, so no
 * engine binary is downloaded (see ../shared/STACK.md).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

/** PostgreSQL OIDs of `name` and `"char"`, and of `text`. */
const NAME_OID = 19;
const CHAR_OID = 18;
const TEXT_OID = 25;

let relabelInstalled = false;

/**
 * adapter-pg 6.x cannot deserialize `name` and `"char"` columns, which the schema engine's
 * catalog queries return (prisma/orm#27403). Relabel them as text; their values are strings.
 * Installed in the CLI process only: the services never load this module.
 */
function installCatalogColumnRelabel(): void {
  if (relabelInstalled) return;
  relabelInstalled = true;
  const relabel = (res: pg.QueryResult | undefined) => {
    for (const field of res?.fields ?? []) {
      if (field.dataTypeID === NAME_OID || field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
    }
    return res;
  };
  const originalQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function patchedQuery(this: pg.Client, ...args: unknown[]) {
    if (typeof args[0] === 'string') args[0] = forceShadowDrop(args[0]);
    // pg.Pool#query calls Client#query with a callback; direct callers get a promise.
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (err: unknown, res?: pg.QueryResult) => void;
      args[last] = (err: unknown, res?: pg.QueryResult) => callback(err, relabel(res));
      return originalQuery.apply(this, args);
    }
    const result = originalQuery.apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      return (result as Promise<pg.QueryResult>).then(relabel);
    }
    return result;
} as typeof pg.Client.prototype.query;
}

/**
 * `migrate dev` drops its shadow database while the adapter's own pool still holds a session
 * on it, and PostgreSQL refuses ("being accessed by other users"). PostgreSQL 13+ can end those
 * sessions itself; the pool whose session ends then emits an error nobody listens to, which is
 * expected here and must not end the CLI.
 */
function forceShadowDrop(sql: string): string {
  return /^\s*DROP DATABASE\b/i.test(sql) && !/\bWITH\s*\(\s*FORCE\s*\)/i.test(sql) ? `${sql.trimEnd().replace(/;$/, '')} WITH (FORCE)` : sql;
}

function ignoreErrorsOfEndedShadowSessions(): void {
  const originalEmit = pg.Pool.prototype.emit;
  pg.Pool.prototype.emit = function emit(this: pg.Pool, event: string | symbol, ...args: unknown[]) {
    if (event === 'error' && this.listenerCount('error') === 0) return false;
    return originalEmit.call(this, event, ...args);
  } as typeof pg.Pool.prototype.emit;
}

export function migrationAdapter(): PrismaPg {
  ignoreErrorsOfEndedShadowSessions();
  installCatalogColumnRelabel();
  const raw = process.env['DATABASE_URL'];
  if (!raw) throw new Error('DATABASE_URL is not set: the Prisma CLI needs the database to migrate');
  const url = new URL(raw);
  // Separate fields, not a connection string: connectToShadowDb() overrides `database`,
  // and pg lets a connectionString win over it (STACK.md, known problem 2).
  return new PrismaPg(
    {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username || 'postgres'),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
      max: 1,
      allowExitOnIdle: true,
    },
  );
}

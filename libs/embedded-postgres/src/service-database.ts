import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startEmbeddedPostgres } from './embedded-postgres';
import { acquireLauncherLock } from './launcher-lock';
import { runMigrations, type SchemaName } from './run-migrations';
import { findWorkspaceRoot } from './workspace-root';

/** A service's database as the operator's environment names it (the caller reads the variables). */
export interface ServiceDatabaseLocation {
  /**
   * The service, as the launcher names it (tools/platform/services.mjs): its migrations, its
   * database `<name>_<service>` on a server, its embedded data in `<data root>/<service>/pg`.
   */
  service: SchemaName;
  /** The service's own database URL variable (AUTH_DATABASE_URL...), named when the embedded database is busy. */
  urlVariable: string;
  /** That variable's value: the database, as is. */
  url?: string;
  /** DATABASE_URL: a PostgreSQL server holding the launcher's per-service databases. */
  serverUrl?: string;
  /** PLATFORM_DATA_DIR: the launcher's data directory, default .data/ in the workspace. */
  dataRoot?: string;
}

/** The pool settings of the client `connect` makes (pg's, as adapter-pg takes them). */
export interface ConnectionSettings {
  connectionString: string;
  max: number;
  connectionTimeoutMillis?: number;
}

/** A database client closed by `$disconnect()`, as a Prisma client is. */
export interface DisconnectableClient {
  $disconnect(): Promise<void>;
}

export interface ServiceDatabase<Client> {
  client: Client;
  /** 'postgresql' (a server) or 'embedded' (the launcher's data directory). */
  kind: 'postgresql' | 'embedded';
  /** Where, for the operator; no password. */
  description: string;
  /** Disconnects the client, then stops the embedded PostgreSQL and releases the launcher's lock. */
  close(): Promise<void>;
}

/** `postgresql://host/app` → `postgresql://host/app_auth`, as the launcher derives it (tools/platform/databases.mjs). */
export function derivedDatabaseUrl(serverUrl: string, service: SchemaName): string {
  const url = new URL(serverUrl);
  const base = decodeURIComponent(url.pathname.slice(1)) || 'postgres';
  url.pathname = `/${base}_${service}`;
  return url.toString();
}

function redact(raw: string): string {
  const url = new URL(raw);
  if (url.password) url.password = '***';
  return url.toString();
}

/**
 * A staff CLI's connection to a service's database, found the way the launcher finds it: the
 * service's URL as is; else the server's URL plus `_<service>`; else the embedded PostgreSQL in
 * the data directory, migrated first as `npm start` does, under the launcher's lock.
 */
export async function openServiceDatabase<Client extends DisconnectableClient>(
  location: ServiceDatabaseLocation,
  connect: (settings: ConnectionSettings) => Client,
): Promise<ServiceDatabase<Client>> {
  const url = location.url || (location.serverUrl ? derivedDatabaseUrl(location.serverUrl, location.service) : undefined);
  if (url) {
    const client = connect({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 });
    return { client, kind: 'postgresql', description: redact(url), close: () => client.$disconnect() };
  }
  const dataRoot = location.dataRoot || join(findWorkspaceRoot(), '.data');
  const release = acquireLauncherLock(dataRoot, location.urlVariable);
  try {
    const dataDir = join(dataRoot, location.service, 'pg');
    mkdirSync(dataDir, { recursive: true });
    const server = await startEmbeddedPostgres({ dataDir });
    try {
      await runMigrations(location.service, server.url);
    } catch (error) {
      await server.stop();
      throw error;
    }
    // One connection: the embedded PostgreSQL runs one session.
    const client = connect({ connectionString: server.url, max: 1 });
    return {
      client,
      kind: 'embedded',
      description: `embedded database in ${dataDir}`,
      close: async () => {
        await client.$disconnect();
        await server.stop();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

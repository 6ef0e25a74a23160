import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { initialiseDataDir, isInitialised } from './init-data-dir';

export interface EmbeddedPostgresOptions {
  /** Data directory on disk; undefined keeps the database in memory. */
  dataDir?: string;
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /**
   * Concurrent client connections the socket server accepts. Connections past the limit
   * fail at once rather than queue, so it must cover every pool plus the migration CLI.
   */
  maxConnections?: number;
}

export interface EmbeddedPostgres {
  /** postgresql:// URL of the server. Its clients must use a pool of size 1. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const DEFAULT_MAX_CONNECTIONS = 8;

/**
 * PostgreSQL settings of the embedded server, on top of PGlite's own start parameters.
 * shared_buffers: initdb writes 128MB into postgresql.conf, and PGlite touches that much of its
 * wasm memory, while the platform's databases are a few MB: a small shared_buffers keeps the
 * embedded mode's memory down.
 * A buffer miss is a read from the data directory's files, not an error.
 */
export const EMBEDDED_POSTGRES_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: '8MB' };

function startParams(): string[] {
  const settings = Object.entries(EMBEDDED_POSTGRES_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  return [...PGlite.defaultStartParams, ...settings];
}

/**
 * PGlite (PostgreSQL in wasm) served over TCP, so that applications keep the very same
 * pg / adapter-pg code path as against a real PostgreSQL. PGlite runs one session: queries
 * from several connections interleave, which is why clients must use one connection each.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir && !isInitialised(options.dataDir)) await initialiseDataDir(options.dataDir);
  const db = await PGlite.create(options.dataDir, { startParams: startParams() });
  const server = new PGLiteSocketServer({
    db,
    host: HOST,
    port: options.port ?? 0,
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  // getServerConn() reports the port actually bound, also when 0 was asked for.
  const port = Number(server.getServerConn().split(':').pop());
  let stopped: Promise<void> | undefined;
  return {
    url: `postgresql://postgres:postgres@${HOST}:${port}/postgres`,
    port,
    stop: () => {
      stopped ??= server.stop().then(() => db.close());
      return stopped;
    },
  };
}

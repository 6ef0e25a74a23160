import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { LAUNCHER_LOCK_FILE } from './launcher-lock';
import { type ConnectionSettings, derivedDatabaseUrl, openServiceDatabase } from './service-database';

/** What openServiceDatabase asked `connect` for, and whether it closed the client. */
function recordingConnect() {
  const connections: (ConnectionSettings & { disconnected: boolean })[] = [];
  const connect = (settings: ConnectionSettings) => {
    const connection = { ...settings, disconnected: false };
    connections.push(connection);
    return { connection, $disconnect: async () => void (connection.disconnected = true) };
  };
  return { connections, connect };
}

describe('derivedDatabaseUrl (tools/platform/databases.mjs)', () => {
  it('appends the service to the server URL\'s database name, keeping the rest', () => {
    expect(derivedDatabaseUrl('postgresql://app:secret@db.internal:5432/platform?sslmode=require', 'auth')).toBe(
      'postgresql://app:secret@db.internal:5432/platform_auth?sslmode=require',
    );
  });

  it('takes postgres when the URL names no database', () => {
    expect(derivedDatabaseUrl('postgresql://127.0.0.1:5432', 'resource')).toBe('postgresql://127.0.0.1:5432/postgres_resource');
  });
});

describe('openServiceDatabase', () => {
  const location = { service: 'auth', urlVariable: 'AUTH_DATABASE_URL' } as const;

  it('the service\'s URL as is: two connections, a connect timeout, the password hidden from the operator', async () => {
    const { connections, connect } = recordingConnect();
    const database = await openServiceDatabase(
      { ...location, url: 'postgresql://app:secret@db.internal/auth', serverUrl: 'postgresql://db.internal/platform' },
      connect,
    );
    expect(connections).toEqual([{ connectionString: 'postgresql://app:secret@db.internal/auth', max: 2, connectionTimeoutMillis: 5_000, disconnected: false }]);
    expect(database).toMatchObject({ client: { connection: connections[0] }, kind: 'postgresql', description: 'postgresql://app:***@db.internal/auth' });
    await database.close();
    expect(connections[0]?.disconnected).toBe(true);
  });

  it('else the server\'s URL plus the service; an empty variable counts as unset', async () => {
    const { connections, connect } = recordingConnect();
    const database = await openServiceDatabase({ ...location, service: 'resource', url: '', serverUrl: 'postgresql://db.internal/platform' }, connect);
    expect(connections[0]?.connectionString).toBe('postgresql://db.internal/platform_resource');
    expect(database.kind).toBe('postgresql');
  });

  describe('else the embedded PostgreSQL in the data directory', () => {
    let dataRoot: string;

    beforeAll(() => {
      dataRoot = mkdtempSync(join(tmpdir(), 'service-database-'));
    });

    afterAll(() => {
      rmSync(dataRoot, { recursive: true, force: true });
    });

    it('migrated first, one connection, under the launcher\'s lock until closed', async () => {
      const { connections, connect } = recordingConnect();
      const database = await openServiceDatabase({ ...location, url: '', serverUrl: '', dataRoot }, connect);
      const lockFile = join(dataRoot, LAUNCHER_LOCK_FILE);
      try {
        expect(database.kind).toBe('embedded');
        expect(database.description).toBe(`embedded database in ${join(dataRoot, 'auth', 'pg')}`);
        expect(existsSync(join(dataRoot, 'auth', 'pg', 'PG_VERSION'))).toBe(true);
        expect(readFileSync(lockFile, 'utf8')).toBe(String(process.pid));
        expect(connections).toEqual([{ connectionString: expect.stringMatching(/^postgresql:\/\/postgres:postgres@127\.0\.0\.1:\d+\/postgres$/), max: 1, disconnected: false }]);
        const client = new Client({ connectionString: connections[0]?.connectionString });
        await client.connect();
        try {
          const { rows } = await client.query<{ exists: boolean }>("SELECT to_regclass('public.clients') IS NOT NULL AS exists");
          expect(rows[0]?.exists).toBe(true);
        } finally {
          await client.end();
        }
      } finally {
        await database.close();
      }
      expect(connections[0]?.disconnected).toBe(true);
      expect(existsSync(lockFile)).toBe(false);
      const stopped = new Client({ connectionString: connections[0]?.connectionString });
      await expect(stopped.connect()).rejects.toThrow();
    }, 120_000);
  });
});

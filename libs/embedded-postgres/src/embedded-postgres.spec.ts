import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type QueryResultRow } from 'pg';
import { EMBEDDED_POSTGRES_SETTINGS, runMigrations, startEmbeddedPostgres, type EmbeddedPostgres } from './index';

describe('startEmbeddedPostgres', () => {
  let postgres: EmbeddedPostgres;

  beforeAll(async () => {
    postgres = await startEmbeddedPostgres();
  }, 60_000);

  afterAll(async () => {
    await postgres?.stop();
  });

  it('serves PostgreSQL on an ephemeral port of 127.0.0.1', () => {
    expect(postgres.port).toBeGreaterThan(0);
    expect(postgres.url).toBe(`postgresql://postgres:postgres@127.0.0.1:${postgres.port}/postgres`);
  });

  it('applies the auth migrations', async () => {
    await runMigrations('auth', postgres.url);

    const client = new Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ exists: boolean }>("SELECT to_regclass('public.clients') IS NOT NULL AS exists");
      expect(rows[0].exists).toBe(true);
    } finally {
      await client.end();
    }
  }, 120_000);

  it('rejects with the CLI output when migrations fail', async () => {
    await expect(runMigrations('auth', 'postgresql://postgres:postgres@127.0.0.1:1/postgres')).rejects.toThrow(
      /Migrations of "auth" failed/,
    );
  }, 60_000);
});

describe('startEmbeddedPostgres with a data directory', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'embedded-postgres-'));
  });

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function query<T extends QueryResultRow>(url: string, sql: string): Promise<T[]> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  }

  it('initialises a new directory, runs with the embedded settings, and keeps the data when reopened', async () => {
    const first = await startEmbeddedPostgres({ dataDir });
    try {
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
      const [setting] = await query<{ shared_buffers: string }>(first.url, 'SHOW shared_buffers');
      expect(setting.shared_buffers).toBe(EMBEDDED_POSTGRES_SETTINGS['shared_buffers']);
      await query(first.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')");
    } finally {
      await first.stop();
    }

    const reopened = await startEmbeddedPostgres({ dataDir });
    try {
      expect(await query<{ v: string }>(reopened.url, 'SELECT v FROM kept')).toEqual([{ v: 'still here' }]);
    } finally {
      await reopened.stop();
    }
  }, 120_000);
});

import { Client } from 'pg';
import { runMigrations, startEmbeddedPostgres, type EmbeddedPostgres } from './index';

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

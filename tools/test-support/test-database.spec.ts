import { Client } from 'pg';
import { createClient } from 'redis';
import { describeIfPostgres, describeIfRedis, realRedisUrl } from './real-services';
import { createTestDatabase, type TestDatabase } from './test-database';

async function query<T extends object>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('createTestDatabase', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('auth');
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
  });

  it('reports the kind and pool size of the run', () => {
    const expected = process.env['DATABASE_URL'] ? { kind: 'postgresql', poolSize: 5 } : { kind: 'embedded', poolSize: 1 };
    expect(database).toMatchObject(expected);
  });

  it('returns a migrated database', async () => {
    const rows = await query<{ exists: boolean }>(database.url, "SELECT to_regclass('public.clients') IS NOT NULL AS exists");
    expect(rows).toEqual([{ exists: true }]);
  });
});

describeIfPostgres('createTestDatabase on a real PostgreSQL', () => {
  it('creates a database of its own and drops it', async () => {
    const database = await createTestDatabase('auth');
    const name = new URL(database.url).pathname.slice(1);
    expect(name).toMatch(/^test_auth_[0-9a-f]{12}$/);

    await database.drop();
    const rows = await query(process.env['DATABASE_URL'] as string, `SELECT 1 FROM pg_database WHERE datname = '${name}'`);
    expect(rows).toEqual([]);
  }, 60_000);
});

describeIfRedis('the real Redis', () => {
  it('answers PING', async () => {
    const client = createClient({ url: realRedisUrl() });
    await client.connect();
    try {
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.destroy();
    }
  });
});

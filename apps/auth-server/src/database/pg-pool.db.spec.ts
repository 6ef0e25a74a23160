/**
 * Named statements over the shared pg pool, on a real database (PostgreSQL when DATABASE_URL
 * is set, the embedded one otherwise): prepared once per connection on a server, never on the
 * embedded PostgreSQL, whose one session outlives the pool's connections.
 */
import { describeIfPostgres } from '../../../../tools/test-support/real-services';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { createPgPool, query, statement } from './pg-pool';

const ONE = statement('pg_pool_spec_one', 'SELECT $1::int + 1 AS "value"');
const PREPARED = 'SELECT name FROM pg_prepared_statements ORDER BY name';

describe('pg pool statements', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('auth');
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
  });

  it('answers a named statement on every new pool, one after the other (the embedded session keeps what a closed one prepared)', async () => {
    for (let round = 0; round < 3; round++) {
      const pool = createPgPool({ url: database.url, poolSize: database.poolSize });
      try {
        expect(await query<{ value: number }>(pool, ONE, [round])).toEqual([{ value: round + 1 }]);
        expect(await query<{ value: number }>(pool, ONE, [round + 1])).toEqual([{ value: round + 2 }]);
      } finally {
        await pool.end();
      }
    }
  });

  it('prepares nothing on a pool of one connection (the embedded PostgreSQL\'s size)', async () => {
    const one = createPgPool({ url: database.url, poolSize: 1 });
    try {
      await query(one, ONE, [1]);
      expect((await one.query(PREPARED)).rows).toEqual([]);
    } finally {
      await one.end();
    }
  });

  describeIfPostgres('on a PostgreSQL server', () => {
    it('prepares a statement once per connection, under its name', async () => {
      const pool = createPgPool({ url: database.url, poolSize: 2 });
      try {
        // Sequential queries: the pool hands back its one idle connection, the one that prepared.
        await query(pool, ONE, [1]);
        await query(pool, ONE, [2]);
        expect((await pool.query(PREPARED)).rows).toEqual([{ name: 'pg_pool_spec_one' }]);
        expect(pool.totalCount).toBe(1);
      } finally {
        await pool.end();
      }
    });
  });
});

import { Client, Pool, type PoolClient } from 'pg';
import { createTestDatabase, describeIfPostgres, type TestDatabase } from '../../../tools/test-support';
import { type AdvisoryLockingTransaction, type BatchedPurge, purgeInBatches } from './batched-purge';

jest.setTimeout(60_000);

type Kind = 'a' | 'b';

/** A transaction on one pooled connection, shaped like the Prisma transaction client the services pass. */
interface PgTransaction extends AdvisoryLockingTransaction {
  client: PoolClient;
}

const LOCK_KEY = 7_231_004_999;

let database: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  database = await createTestDatabase('auth');
  pool = new Pool({ connectionString: database.url, max: database.poolSize });
  await pool.query('CREATE TABLE purge_spec_rows (id serial PRIMARY KEY, kind text NOT NULL)');
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

async function transaction<T>(work: (tx: PgTransaction) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const tx: PgTransaction = {
      client,
      $queryRawUnsafe: async <R>(query: string, ...values: unknown[]) => (await client.query(query, values)).rows as R,
    };
    const result = await work(tx);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

async function seed(rows: Record<Kind, number>): Promise<void> {
  await pool.query('TRUNCATE purge_spec_rows');
  for (const kind of ['a', 'b'] as const) {
    await pool.query('INSERT INTO purge_spec_rows (kind) SELECT $1 FROM generate_series(1, $2)', [kind, rows[kind]]);
  }
}

async function remaining(): Promise<Record<Kind, number>> {
  const { rows } = await pool.query<{ kind: Kind; count: number }>('SELECT kind, count(*)::int AS count FROM purge_spec_rows GROUP BY kind');
  return { a: 0, b: 0, ...Object.fromEntries(rows.map((row) => [row.kind, row.count])) };
}

/** A job over the spec's table; `batches` records the kind and size of every batch that ran. */
function job(overrides: Partial<BatchedPurge<Kind, PgTransaction>> = {}): { job: BatchedPurge<Kind, PgTransaction>; batches: string[] } {
  const batches: string[] = [];
  return {
    batches,
    job: {
      kinds: ['a', 'b'],
      lockKey: LOCK_KEY,
      batchSize: 2,
      maxBatchesPerKind: 100,
      stopped: () => false,
      transaction,
      deleteBatch: async (tx, kind, batchSize) => {
        const { rowCount } = await tx.client.query('DELETE FROM purge_spec_rows WHERE id IN (SELECT id FROM purge_spec_rows WHERE kind = $1 ORDER BY id LIMIT $2)', [kind, batchSize]);
        batches.push(`${kind}:${rowCount}`);
        return rowCount ?? 0;
      },
      ...overrides,
    },
  };
}

describe('purgeInBatches', () => {
  it('purges each kind in turn, in batches of at most batchSize, a kind done once a batch deletes fewer', async () => {
    await seed({ a: 5, b: 2 });
    const { job: purge, batches } = job();

    expect(await purgeInBatches(purge)).toEqual({ deleted: { a: 5, b: 2 }, lockHeld: false });
    expect(batches).toEqual(['a:2', 'a:2', 'a:1', 'b:2', 'b:0']);
    expect(await remaining()).toEqual({ a: 0, b: 0 });
  });

  it('reports zero for a kind with nothing to purge', async () => {
    await seed({ a: 0, b: 1 });

    expect(await purgeInBatches(job().job)).toEqual({ deleted: { a: 0, b: 1 }, lockHeld: false });
  });

  it('stops a kind after maxBatchesPerKind batches and goes on with the next; the next pass goes on', async () => {
    await seed({ a: 5, b: 1 });
    const { job: purge, batches } = job({ maxBatchesPerKind: 2 });

    expect(await purgeInBatches(purge)).toEqual({ deleted: { a: 4, b: 1 }, lockHeld: false });
    expect(batches).toEqual(['a:2', 'a:2', 'b:1']);
    expect(await remaining()).toEqual({ a: 1, b: 0 });
    expect((await purgeInBatches(purge)).deleted).toEqual({ a: 1, b: 0 });
  });

  it('ends the pass before the next batch once stopped() says so', async () => {
    await seed({ a: 5, b: 2 });
    let batchesAllowed = 2;
    const { job: purge, batches } = job({ stopped: () => batchesAllowed-- <= 0 });

    expect(await purgeInBatches(purge)).toEqual({ deleted: { a: 4, b: 0 }, lockHeld: false });
    expect(batches).toEqual(['a:2', 'a:2']);
    expect(await remaining()).toEqual({ a: 1, b: 2 });
  });

  it('rolls a failing batch back and rejects with its error', async () => {
    await seed({ a: 3, b: 0 });
    const failing = job().job;
    const { job: purge } = job({
      deleteBatch: async (tx, kind, batchSize) => {
        await failing.deleteBatch(tx, kind, batchSize);
        throw new Error('batch failed');
      },
    });

    await expect(purgeInBatches(purge)).rejects.toThrow('batch failed');
    expect(await remaining()).toEqual({ a: 3, b: 0 });
  });

  // Another replica is another session: the embedded PostgreSQL serves one session for every
  // connection, so only a real one can show it.
  describeIfPostgres('one replica at a time', () => {
    let otherReplica: Client;

    beforeEach(async () => {
      otherReplica = new Client({ connectionString: database.url });
      await otherReplica.connect();
    });

    afterEach(() => otherReplica.end());

    it('ends the pass without deleting while another session holds the lock, and purges once it is released', async () => {
      await seed({ a: 3, b: 1 });
      const { job: purge, batches } = job();
      await otherReplica.query('BEGIN');
      await otherReplica.query('SELECT pg_advisory_xact_lock($1::bigint)', [LOCK_KEY]);

      expect(await purgeInBatches(purge)).toEqual({ deleted: { a: 0, b: 0 }, lockHeld: true });
      expect(batches).toEqual([]);
      expect(await remaining()).toEqual({ a: 3, b: 1 });

      await otherReplica.query('COMMIT');
      expect(await purgeInBatches(purge)).toEqual({ deleted: { a: 3, b: 1 }, lockHeld: false });
    });

    it('ends the pass at the batch after another session took the lock, keeping the batches done before', async () => {
      await seed({ a: 5, b: 0 });
      let committed = 0;
      const { job: purge, batches } = job({
        transaction: async (work) => {
          const result = await transaction(work);
          if (++committed === 1) await otherReplica.query('SELECT pg_advisory_lock($1::bigint)', [LOCK_KEY]);
          return result;
        },
      });

      expect(await purgeInBatches(purge)).toEqual({ deleted: { a: 2, b: 0 }, lockHeld: true });
      expect(batches).toEqual(['a:2']);
      expect(await remaining()).toEqual({ a: 3, b: 0 });
      await otherReplica.query('SELECT pg_advisory_unlock($1::bigint)', [LOCK_KEY]);
    });

    it('releases the lock with each batch: no session lock is left behind', async () => {
      await seed({ a: 3, b: 0 });
      await purgeInBatches(job().job);

      const { rows } = await otherReplica.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [LOCK_KEY]);
      expect(rows).toEqual([{ locked: true }]);
    });
  });
});

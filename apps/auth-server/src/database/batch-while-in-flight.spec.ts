import { DatabaseError } from 'pg';
import { batchWhileInFlight } from './batch-while-in-flight';

interface Pending {
  items: readonly string[];
  alone: boolean;
  settle(results: string[] | Error): void;
}

/** A statement double: every call waits until the test settles it. */
function database() {
  const calls: Pending[] = [];
  const call = (items: readonly string[], alone: boolean) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({ items, alone, settle: (results) => (results instanceof Error ? reject(results) : resolve(results)) });
    });
  const batched = batchWhileInFlight<string, string>({
    maxBatchSize: 3,
    runBatch: (items) => call(items, false),
    runAlone: async (item) => (await call([item], true))[0] as string,
  });
  return { calls, batched };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

function refusal(message: string): DatabaseError {
  return new DatabaseError(message, 0, 'error');
}

describe('batchWhileInFlight', () => {
  it('sends a lone call at once, alone', async () => {
    const { calls, batched } = database();
    const result = batched('a');
    await turn();
    expect(calls.map(({ items, alone }) => ({ items, alone }))).toEqual([{ items: ['a'], alone: true }]);
    calls[0]?.settle(['A']);
    await expect(result).resolves.toBe('A');
  });

  it('sends the calls of one turn together, and those made while a batch is in the database in the next', async () => {
    const { calls, batched } = database();
    const first = [batched('a'), batched('b')];
    await turn();
    const second = [batched('c'), batched('d')];
    await turn();
    const third = batched('e');
    await turn();
    // One batch at a time in the database: c, d and e wait for the first.
    expect(calls.map(({ items }) => items)).toEqual([['a', 'b']]);

    calls[0]?.settle(['A', 'B']);
    await expect(Promise.all(first)).resolves.toEqual(['A', 'B']);
    await turn();
    expect(calls.map(({ items }) => items)).toEqual([['a', 'b'], ['c', 'd', 'e']]);
    calls[1]?.settle(['C', 'D', 'E']);
    await expect(Promise.all([...second, third])).resolves.toEqual(['C', 'D', 'E']);
  });

  it('keeps batches within maxBatchSize, one after the other', async () => {
    const { calls, batched } = database();
    const results = ['a', 'b', 'c', 'd'].map((item) => batched(item));
    await turn();
    expect(calls.map(({ items }) => items)).toEqual([['a', 'b', 'c']]);
    calls[0]?.settle(['A', 'B', 'C']);
    await turn();
    await turn();
    expect(calls.map(({ items, alone }) => [items, alone])).toEqual([
      [['a', 'b', 'c'], false],
      [['d'], true],
    ]);
    calls[1]?.settle(['D']);
    await expect(Promise.all(results)).resolves.toEqual(['A', 'B', 'C', 'D']);
  });

  it('runs a batch the database refused item by item: one item’s wait or failure is its own', async () => {
    const { calls, batched } = database();
    const results = ['a', 'b', 'c', 'd'].map((item) => batched(item).catch((error: Error) => `failed: ${error.message}`));
    await turn();
    calls[0]?.settle(refusal('could not obtain lock on row in relation "grants"'));
    await turn();
    expect(calls.slice(1).map(({ items, alone }) => [items, alone])).toEqual([
      [['a'], true],
      [['b'], true],
      [['c'], true],
    ]);
    calls[1]?.settle(['A']);
    calls[2]?.settle(refusal('invalid byte sequence for encoding "UTF8": 0x00'));
    // c still waits (a lock): a and b are answered, and d, the next batch, goes meanwhile.
    await expect(Promise.all(results.slice(0, 2))).resolves.toEqual(['A', 'failed: invalid byte sequence for encoding "UTF8": 0x00']);
    await turn();
    expect(calls[4]).toMatchObject({ items: ['d'], alone: true });
    calls[4]?.settle(['D']);
    await expect(results[3]).resolves.toBe('D');
    calls[3]?.settle(['C']);
    await expect(results[2]).resolves.toBe('C');
  });

  it('does not run again a batch whose outcome is unknown (the connection lost): every item gets the error', async () => {
    const { calls, batched } = database();
    const results = ['a', 'b'].map((item) => batched(item).catch((error: Error) => `failed: ${error.message}`));
    await turn();
    calls[0]?.settle(new Error('Connection terminated unexpectedly'));
    await expect(Promise.all(results)).resolves.toEqual(['failed: Connection terminated unexpectedly', 'failed: Connection terminated unexpectedly']);
    expect(calls).toHaveLength(1);

    // The next call goes at once: nothing stays waiting after a failure.
    const next = batched('c');
    await turn();
    expect(calls[1]?.items).toEqual(['c']);
    calls[1]?.settle(['C']);
    await expect(next).resolves.toBe('C');
  });
});

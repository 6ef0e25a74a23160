/**
 * The store contract, held by the in-process store and by the Redis store (real Redis when
 * REDIS_URL is set), and the Redis store's fallback when Redis is unreachable.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { realRedisUrl } from '../../../tools/test-support';
import { MemoryRateLimitStore } from './memory-store';
import { RedisRateLimitStore } from './redis-store';
import { type Admission, type BackoffPolicy, type RateLimitStore, lockAfterFailure } from './store';

const POLICY: BackoffPolicy = { freeFailures: 2, baseDelayMs: 1_000, maxDelayMs: 8_000, forgetAfterMs: 60_000, maxPending: 3 };

describe('lockAfterFailure', () => {
  it.each([
    [1, 0],
    [2, 0],
    [3, 1_000],
    [4, 2_000],
    [5, 4_000],
    [6, 8_000],
    [7, 8_000],
    [1_000, 8_000],
  ])('failure %i locks for %i ms', (failure, lock) => {
    expect(lockAfterFailure(failure, POLICY)).toBe(lock);
  });
});

const stores: [string, () => Promise<RateLimitStore>][] = [['in-process', async () => new MemoryRateLimitStore()]];
const redisUrl = realRedisUrl();
if (redisUrl) {
  stores.push([
    'Redis',
    async () => {
      const store = new RedisRateLimitStore({ url: redisUrl, prefix: `test:rate-limits:${randomBytes(4).toString('hex')}:` });
      if (!(await store.ready())) throw new Error('REDIS_URL is set but Redis is not reachable');
      return store;
    },
  ]);
} else {
  it.skip('the Redis store contract: skipped, needs a real Redis (set REDIS_URL)', () => undefined);
}

describe.each(stores)('the %s store', (_name, make) => {
  let store: RateLimitStore;
  beforeEach(async () => {
    store = await make();
  });
  afterEach(async () => {
    await store.close();
  });

  it('counts requests in a fixed window and starts again after it', async () => {
    expect(await store.hit('w', 300)).toMatchObject({ count: 1 });
    expect(await store.hit('w', 300)).toMatchObject({ count: 2 });
    const third = await store.hit('w', 300);
    expect(third.count).toBe(3);
    expect(third.resetInMs).toBeGreaterThan(0);
    expect(third.resetInMs).toBeLessThanOrEqual(300);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await store.hit('w', 300)).toMatchObject({ count: 1 });
  });

  /** One attempt, settled as `outcome`; the admission. */
  async function tryOnce(key: string, outcome: 'failed' | 'cleared' | 'forgiven', policy = POLICY): Promise<Admission> {
    const admission = await store.attempt(key, policy);
    if (admission.ticket) await store.settle(key, policy, outcome, admission.ticket);
    return admission;
  }

  it('lets the free failures through, then locks for a doubling delay, refusing without counting', async () => {
    const policy = { ...POLICY, baseDelayMs: 200 };
    expect(await tryOnce('a', 'failed', policy)).toMatchObject({ allowed: true, failures: 0 });
    expect(await tryOnce('a', 'failed', policy)).toMatchObject({ allowed: true, failures: 1 });
    // The third failure is past the free ones: it locks the key for the next attempt.
    expect(await tryOnce('a', 'failed', policy)).toMatchObject({ allowed: true, failures: 2 });
    const refused = await tryOnce('a', 'failed', policy);
    expect(refused).toMatchObject({ allowed: false, failures: 3 });
    expect(refused.retryInMs).toBeGreaterThan(100);
    expect(refused.retryInMs).toBeLessThanOrEqual(200);
    expect(await tryOnce('a', 'failed', policy)).toMatchObject({ allowed: false, failures: 3 });
    await new Promise((resolve) => setTimeout(resolve, 220));
    expect(await tryOnce('a', 'failed', policy)).toMatchObject({ allowed: true, failures: 3 });
    const doubled = await tryOnce('a', 'failed', policy);
    expect(doubled.allowed).toBe(false);
    expect(doubled.retryInMs).toBeGreaterThan(300);
    expect(doubled.retryInMs).toBeLessThanOrEqual(400);
  });

  it('forgets the failures when an attempt clears them (a successful sign-in)', async () => {
    for (let i = 0; i < 3; i++) await tryOnce('c', 'failed');
    expect((await store.attempt('c', POLICY)).allowed).toBe(false);
    const other = 'c2';
    for (let i = 0; i < 2; i++) await tryOnce(other, 'failed');
    await tryOnce(other, 'cleared');
    expect(await tryOnce(other, 'failed')).toMatchObject({ allowed: true, failures: 0 });
  });

  it('counts nothing for a forgiven attempt', async () => {
    for (let i = 0; i < 10; i++) expect(await tryOnce('g', 'forgiven')).toMatchObject({ allowed: true, failures: 0 });
  });

  it('forgets the failures some time after the last one', async () => {
    const policy = { ...POLICY, forgetAfterMs: 200 };
    await tryOnce('f', 'failed', policy);
    await tryOnce('f', 'failed', policy);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await tryOnce('f', 'failed', policy)).toMatchObject({ allowed: true, failures: 0 });
  });

  it('admits at most maxPending parallel attempts, and the next ones once they are settled', async () => {
    const admissions = await Promise.all(Array.from({ length: 20 }, () => store.attempt('burst', POLICY)));
    const admitted = admissions.filter((admission) => admission.allowed);
    expect(admitted).toHaveLength(POLICY.maxPending);
    expect(admissions.find((admission) => !admission.allowed)?.retryInMs).toBe(1_000);
    // Concurrent successes of one account are fine...
    for (const admission of admitted) await store.settle('burst', POLICY, 'cleared', admission.ticket as string);
    expect((await store.attempt('burst', POLICY)).allowed).toBe(true);
  });

  it('locks after a burst of parallel failures no later than maxPending guesses', async () => {
    const admissions = await Promise.all(Array.from({ length: 20 }, () => store.attempt('guesses', POLICY)));
    await Promise.all(admissions.filter((a) => a.ticket).map((a) => store.settle('guesses', POLICY, 'failed', a.ticket as string)));
    expect(await store.attempt('guesses', POLICY)).toMatchObject({ allowed: false, failures: POLICY.maxPending });
  });
});

if (redisUrl) {
  describe('two Redis stores on the same Redis (two instances of a service)', () => {
    it('share their counts', async () => {
      const prefix = `test:rate-limits:${randomBytes(4).toString('hex')}:`;
      const first = new RedisRateLimitStore({ url: redisUrl, prefix });
      const second = new RedisRateLimitStore({ url: redisUrl, prefix });
      try {
        await Promise.all([first.ready(), second.ready()]);
        await first.hit('shared', 10_000);
        expect(await second.hit('shared', 10_000)).toMatchObject({ count: 2 });
        for (let i = 0; i < 3; i++) {
          const admission = await first.attempt('login', POLICY);
          await first.settle('login', POLICY, 'failed', admission.ticket as string);
        }
        expect((await second.attempt('login', POLICY)).allowed).toBe(false);
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });
  });
}

describe('a Redis store whose Redis is unreachable', () => {
  it('counts in-process instead, never throwing and never waiting for Redis', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const store = new RedisRateLimitStore({ url: `redis://127.0.0.1:${port}` });
    try {
      expect(await store.ready()).toBe(false);
      const started = Date.now();
      expect(await store.hit('k', 10_000)).toMatchObject({ count: 1 });
      expect(await store.hit('k', 10_000)).toMatchObject({ count: 2 });
      for (let i = 0; i < 3; i++) {
        const admission = await store.attempt('a', POLICY);
        await store.settle('a', POLICY, 'failed', admission.ticket as string);
      }
      expect((await store.attempt('a', POLICY)).allowed).toBe(false);
      expect(Date.now() - started).toBeLessThan(100);
    } finally {
      await store.close();
    }
  });
});

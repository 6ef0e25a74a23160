import { randomBytes } from 'node:crypto';
import { realRedisUrl } from '../../../tools/test-support';
import { KeyedLimit } from './keyed-limit';
import { MemoryRateLimitStore } from './memory-store';
import { RedisRateLimitStore } from './redis-store';
import { type LimitRule, windowCounterFor } from './window-counter';

const RULE: LimitRule = { name: 'test:key', max: 3, windowSeconds: 60, subject: 'the test' };

function limitOver(now: () => number, store = new MemoryRateLimitStore(1_000, now)) {
  return new KeyedLimit(RULE, windowCounterFor(store), { now });
}

describe('KeyedLimit', () => {
  it('hit: counts before the work and refuses past the limit, with the window left as Retry-After', async () => {
    let now = 1_000_000;
    const limit = limitOver(() => now);
    expect([await limit.hit('a'), await limit.hit('a'), await limit.hit('a')]).toEqual([undefined, undefined, undefined]);
    now += 20_000;
    expect(await limit.hit('a')).toEqual({ rule: RULE, retryAfterSeconds: 40 });
    // Another key has its own budget.
    expect(await limit.hit('b')).toBeUndefined();
  });

  it('record: counts work done; once the count reaches the limit, refusalOf knows the key is spent, without counting, until its window ends', async () => {
    let now = 1_000_000;
    const limit = limitOver(() => now);
    for (let i = 0; i < 2; i++) expect(await limit.record('a')).toBeUndefined();
    expect(limit.refusalOf('a')).toBeUndefined();
    // The third of three: the next one would be over the limit.
    expect(await limit.record('a')).toEqual({ rule: RULE, retryAfterSeconds: 60 });
    now += 30_000;
    expect(limit.refusalOf('a')).toEqual({ rule: RULE, retryAfterSeconds: 30 });
    expect(limit.refusalOf('b')).toBeUndefined();
    now += 30_000;
    expect(limit.refusalOf('a')).toBeUndefined();
    // A new window: the key is counted from zero again.
    expect(await limit.record('a')).toBeUndefined();
  });

  it('spend: another limit’s verdict refuses a key here for as long as it says, under that limit', () => {
    let now = 1_000_000;
    const limit = limitOver(() => now);
    const other = { ...RULE, name: 'other', subject: 'the other' };
    limit.spend('family', { rule: other, retryAfterSeconds: 5 });
    expect(limit.refusalOf('family')).toEqual({ rule: other, retryAfterSeconds: 5 });
    now += 5_000;
    expect(limit.refusalOf('family')).toBeUndefined();
  });

  const redisUrl = realRedisUrl();
  (redisUrl ? it : it.skip)('two instances over one Redis: each learns from its own next count that the other spent the key', async () => {
    const prefix = `test:keyed-limit:${randomBytes(4).toString('hex')}:`;
    const stores = [new RedisRateLimitStore({ url: redisUrl as string, prefix }), new RedisRateLimitStore({ url: redisUrl as string, prefix })];
    try {
      for (const store of stores) expect(await store.ready()).toBe(true);
      const [first, second] = stores.map((store) => new KeyedLimit(RULE, windowCounterFor(store)));
      for (let i = 0; i < 3; i++) await first.record('k');
      expect(first.refusalOf('k')).toMatchObject({ rule: RULE });
      // The second instance has never counted k: it does not know yet...
      expect(second.refusalOf('k')).toBeUndefined();
      // ...until its own next count, whose answer is the shared one.
      expect(await second.record('k')).toMatchObject({ rule: RULE });
      expect(second.refusalOf('k')).toMatchObject({ rule: RULE });
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});

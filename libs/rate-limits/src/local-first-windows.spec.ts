import { randomBytes } from 'node:crypto';
import { realRedisUrl } from '../../../tools/test-support';
import { LocalFirstWindows, type SharedWindows } from './local-first-windows';
import { MemoryRateLimitStore } from './memory-store';
import { RedisRateLimitStore } from './redis-store';
import type { WindowHit } from './store';

/** The shared store with every call it received (the real in-process store underneath). */
class RecordingStore implements SharedWindows {
  readonly calls: number[] = [];
  constructor(private readonly store: SharedWindows = new MemoryRateLimitStore()) {}
  hit(key: string, windowMs: number, by = 1): Promise<WindowHit> {
    this.calls.push(by);
    return this.store.hit(key, windowMs, by);
  }
}

const MINUTE = 60_000;

describe('LocalFirstWindows', () => {
  it('asks the shared store on a key\'s first hit, answers the next ones here, and adds them on the next sync', async () => {
    const shared = new RecordingStore();
    const windows = new LocalFirstWindows(shared, { syncIntervalMs: 20 });
    expect(await windows.hit('k', MINUTE, 1_000)).toMatchObject({ count: 1 });
    const counts: number[] = [];
    for (let i = 0; i < 20; i++) counts.push((await windows.hit('k', MINUTE, 1_000)).count);
    expect(counts).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(shared.calls).toEqual([1]);
    await windows.flush();
    expect(shared.calls).toEqual([1, 20]);
    expect(await shared.hit('k', MINUTE, 0)).toMatchObject({ count: 21 });
  });

  it('sends the waiting hits by itself after the sync interval', async () => {
    const shared = new RecordingStore();
    const windows = new LocalFirstWindows(shared, { syncIntervalMs: 10 });
    await windows.hit('k', MINUTE, 1_000);
    for (let i = 0; i < 5; i++) await windows.hit('k', MINUTE, 1_000);
    for (let attempt = 0; attempt < 100 && shared.calls.length < 2; attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(shared.calls).toEqual([1, 5]);
  });

  it('counts the second half of a budget in the shared store, hit by hit, and refuses exactly after the limit', async () => {
    const shared = new RecordingStore();
    const windows = new LocalFirstWindows(shared, { syncIntervalMs: 60_000 });
    const counts: number[] = [];
    for (let i = 0; i < 24; i++) counts.push((await windows.hit('k', MINUTE, 20)).count);
    expect(counts).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    // A tenth of 20 (two hits) may wait here: hits 2-3, 5-6 and 8-9 are answered locally, the
    // one after each pair carries it to the store; from 11 (past half) every hit is the store's.
    expect(shared.calls).toEqual([1, 3, 3, 3, ...Array(14).fill(1)]);
    expect(counts.filter((count) => count <= 20)).toHaveLength(20);
  });

  it('starts again with the shared store when the window ends', async () => {
    let now = 1_000;
    const shared = new RecordingStore(new MemoryRateLimitStore(100, () => now));
    const windows = new LocalFirstWindows(shared, { syncIntervalMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) await windows.hit('k', 1_000, 1_000);
    now += 1_000;
    expect(await windows.hit('k', 1_000, 1_000)).toEqual({ count: 1, resetInMs: 1_000 });
    // The two hits that waited belonged to the window that ended: nobody counts them any more.
    expect(shared.calls).toEqual([1, 1]);
  });

  it('holds at most maxKeys keys; the others are counted in the shared store alone', async () => {
    const shared = new RecordingStore();
    const windows = new LocalFirstWindows(shared, { syncIntervalMs: 60_000, maxKeys: 1 });
    await windows.hit('a', MINUTE, 1_000);
    await windows.hit('b', MINUTE, 1_000);
    await windows.hit('a', MINUTE, 1_000);
    await windows.hit('b', MINUTE, 1_000);
    expect(shared.calls).toEqual([1, 1, 1]);
  });

  const redisUrl = realRedisUrl();
  (redisUrl ? it : it.skip)('two instances over one Redis admit a budget, at most a tenth more, and lose no hit', async () => {
    const prefix = `test:local-first:${randomBytes(4).toString('hex')}:`;
    const redisStores = [new RedisRateLimitStore({ url: redisUrl as string, prefix }), new RedisRateLimitStore({ url: redisUrl as string, prefix })];
    try {
      for (const store of redisStores) expect(await store.ready()).toBe(true);
      const instances = redisStores.map((store) => new LocalFirstWindows(store, { syncIntervalMs: 5 }));
      let admitted = 0;
      for (let i = 0; i < 300; i++) {
        const hit = await instances[i % 2].hit('k', MINUTE, 100);
        if (hit.count <= 100) admitted++;
      }
      await Promise.all(instances.map((instance) => instance.flush()));
      expect(admitted).toBeGreaterThanOrEqual(100);
      expect(admitted).toBeLessThanOrEqual(110);
      expect(await redisStores[0].hit('k', MINUTE, 0)).toMatchObject({ count: 300 });
    } finally {
      await Promise.all(redisStores.map((store) => store.close()));
    }
  });
});

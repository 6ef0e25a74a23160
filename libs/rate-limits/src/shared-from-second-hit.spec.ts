import { MemoryRateLimitStore } from './memory-store';
import { SharedFromSecondHit } from './shared-from-second-hit';
import type { WindowHit } from './store';
import type { WindowCounter } from './window-counter';

/** The shared counter (the in-process store underneath), with every hit it received. */
class RecordingCounter implements WindowCounter {
  readonly keys: string[] = [];
  constructor(private readonly store = new MemoryRateLimitStore()) {}
  hit(key: string, windowMs: number): WindowHit {
    this.keys.push(key);
    return this.store.hitSync(key, windowMs);
  }
  async flush(): Promise<void> {
    return undefined;
  }
}

describe('SharedFromSecondHit', () => {
  it('counts a key’s first hit of a window here only: a key hit once a window never reaches the shared counter', () => {
    let now = 0;
    const shared = new RecordingCounter();
    const counter = new SharedFromSecondHit(shared, { now: () => now });
    for (let window = 0; window < 5; window++) {
      expect(counter.hit('hourly-grant', 60_000, 60)).toEqual({ count: 1, resetInMs: 60_000 });
      now += 60_000;
    }
    expect(shared.keys).toEqual([]);
  });

  it('from the second hit on, every hit goes to the shared counter, the held first one included: the count is exact', () => {
    const shared = new RecordingCounter();
    const counter = new SharedFromSecondHit(shared);
    const counts = Array.from({ length: 5 }, () => (counter.hit('loop', 60_000, 60) as WindowHit).count);
    expect(counts).toEqual([1, 2, 3, 4, 5]);
    expect(shared.keys).toEqual(Array(5).fill('loop'));
  });

  it('two instances: the shared count misses at most each one’s first hit', () => {
    const store = new MemoryRateLimitStore();
    const instances = [new SharedFromSecondHit(new RecordingCounter(store)), new SharedFromSecondHit(new RecordingCounter(store))];
    for (let i = 0; i < 10; i++) instances[i % 2].hit('loop', 60_000, 60);
    expect(store.hitSync('loop', 60_000, 0).count).toBe(10);
    instances[0].hit('pair', 60_000, 60);
    instances[1].hit('pair', 60_000, 60);
    expect(store.hitSync('pair', 60_000, 0).count).toBe(0);
  });
});

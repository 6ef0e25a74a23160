import { LRUCache } from 'lru-cache';
import type { WindowHit } from './store';
import type { WindowCounter } from './window-counter';

export interface SharedFromSecondHitOptions {
  /** Keys remembered here at most; the least recently seen go first (default 100,000). */
  maxKeys?: number;
  now?: () => number;
}

/**
 * A key's first hit in a window is counted in this process only; from its second hit on, every
 * hit, the first one included, goes to the shared counter (LocalFirstWindows over Redis).
 *
 * Most keys of the per-grant, per-user and per-address limits are hit once a minute or less (a
 * grant refreshes about hourly; a user, an address do little more), and a shared counter asks
 * Redis at a key's first hit of every window: one round trip per request, a sizeable share of a
 * whole refresh's CPU. Here such a
 * key costs a map entry; only a key that is hit again (the loop a limit is for) is counted in
 * Redis, at most one hit late on each instance. That lag is one hit per instance whatever the
 * limit, against limits of tens or hundreds.
 */
export class SharedFromSecondHit implements WindowCounter {
  /**
   * Per key, the local time at which this process's window of it ends: positive while its first
   * hit is held here, negative once its hits go to the shared counter (a number, not an object:
   * at thousands of new keys a second the entries are what the garbage collector walks).
   */
  private readonly seen: LRUCache<string, number>;
  private readonly now: () => number;

  constructor(
    private readonly shared: WindowCounter,
    options: SharedFromSecondHitOptions = {},
  ) {
    this.seen = new LRUCache({ max: options.maxKeys ?? 100_000 });
    this.now = options.now ?? Date.now;
  }

  hit(key: string, windowMs: number, max: number): WindowHit | Promise<WindowHit> {
    const now = this.now();
    const seen = this.seen.get(key);
    if (seen === undefined || Math.abs(seen) <= now) {
      this.seen.set(key, now + windowMs);
      return { count: 1, resetInMs: windowMs };
    }
    if (seen > 0) {
      this.seen.set(key, -seen);
      // The first hit, held here until now. Its answer adds nothing the second's does not carry.
      const held = this.shared.hit(key, windowMs, max);
      if (held instanceof Promise) held.catch(() => undefined);
    }
    return this.shared.hit(key, windowMs, max);
  }

  flush(): Promise<void> {
    return this.shared.flush();
  }
}

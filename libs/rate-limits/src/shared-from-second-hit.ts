import { LRUCache } from 'lru-cache';
import type { WindowHit } from './store';
import type { WindowCounter } from './window-counter';

export interface SharedFromSecondHitOptions {
  /** Keys remembered here at most; the least recently seen go first (default 100,000). */
  maxKeys?: number;
  now?: () => number;
}

interface Seen {
  /** Local clock time at which this process's window of the key ends. */
  endsAt: number;
  /** Whether the key's hits of this window go to the shared counter (from its second on). */
  shared: boolean;
}

/**
 * A key's first hit in a window is counted in this process only; from its second hit on, every
 * hit, the first one included, goes to the shared counter (LocalFirstWindows over Redis).
 *
 * Most keys of the per-grant, per-user and per-address limits are hit once a minute or less (a
 * grant refreshes about hourly; a user, an address do little more), and a shared counter asks
 * Redis at a key's first hit of every window: one round trip per request, ~30 µs of CPU each
 * where a whole refresh costs ~150-230 µs (measured side by side on this machine). Here such a
 * key costs a map entry; only a key that is hit again (the loop a limit is for) is counted in
 * Redis, at most one hit late on each instance. That lag is one hit per instance whatever the
 * limit, against limits of tens or hundreds.
 */
export class SharedFromSecondHit implements WindowCounter {
  private readonly seen: LRUCache<string, Seen>;
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
    if (seen === undefined || seen.endsAt <= now) {
      this.seen.set(key, { endsAt: now + windowMs, shared: false });
      return { count: 1, resetInMs: windowMs };
    }
    if (!seen.shared) {
      seen.shared = true;
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

import type { WindowHit } from './store';

/** A shared store's fixed-window counter that can count several requests at once. */
export interface SharedWindows {
  hit(key: string, windowMs: number, by?: number): Promise<WindowHit>;
}

export interface LocalFirstWindowsOptions {
  /** How often the hits counted here are added to the shared store (default 100 ms). */
  syncIntervalMs?: number;
  /** Keys held here at most; a key beyond it is counted in the shared store alone (default 10,000). */
  maxKeys?: number;
  now?: () => number;
}

interface Entry {
  windowMs: number;
  /** The shared count as of the last answer of the shared store (this instance's synced hits included). */
  shared: number;
  /** Hits admitted here and not yet added to the shared store. */
  unsynced: number;
  /** Local clock time at which the shared window ends. */
  resetAt: number;
}

/**
 * Fixed-window counts kept in this process and added to the shared store (Redis) in batches, so
 * a request far from its limit costs no round trip (one or two Redis round trips were a
 * tenth of an introspection's or a token request's CPU).
 *
 * A hit is answered here only while it cannot matter: the key's window is known (its first hit on
 * this instance asks the shared store), the count this instance sees stays within half the limit,
 * and fewer than a tenth of the limit waits unsynced. Every other hit goes to the shared store at
 * once, carrying the hits waiting here, and is answered with the shared count: the second half of
 * every budget is counted exactly as before. What other instances counted meanwhile is at most a
 * tenth of the limit each, and only when a whole budget is spent within one sync interval.
 *
 * rate-limiter-flexible and @fastify/rate-limit count every request in the store; neither batches.
 */
export class LocalFirstWindows {
  private readonly entries = new Map<string, Entry>();
  private readonly syncIntervalMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: SharedWindows,
    options: LocalFirstWindowsOptions = {},
  ) {
    this.syncIntervalMs = options.syncIntervalMs ?? 100;
    this.maxKeys = options.maxKeys ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Counts one request for `key` against `max` per `windowMs`; a promise only when the shared store is asked. */
  hit(key: string, windowMs: number, max: number): WindowHit | Promise<WindowHit> {
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry === undefined || entry.resetAt <= now) {
      if (entry !== undefined) this.entries.delete(key);
      return this.firstHit(key, windowMs);
    }
    const count = entry.shared + entry.unsynced + 1;
    if (count * 2 <= max && (entry.unsynced + 1) * 10 <= max) {
      entry.unsynced += 1;
      this.schedule();
      return { count, resetInMs: entry.resetAt - now };
    }
    return this.sendNow(key, entry, 1);
  }

  /** Adds what waits here to the shared store (on close; the timer does it otherwise). */
  async flush(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all([...this.entries].filter(([, entry]) => entry.unsynced > 0).map(([key, entry]) => this.sendNow(key, entry, 0)));
  }

  private async firstHit(key: string, windowMs: number): Promise<WindowHit> {
    const hit = await this.store.hit(key, windowMs, 1);
    if (this.entries.size < this.maxKeys && !this.entries.has(key)) {
      this.entries.set(key, { windowMs, shared: hit.count, unsynced: 0, resetAt: this.now() + hit.resetInMs });
      // The sweep that forgets ended windows runs while any key is held.
      this.schedule();
    }
    return hit;
  }

  private async sendNow(key: string, entry: Entry, own: number): Promise<WindowHit> {
    const by = entry.unsynced + own;
    entry.unsynced = 0;
    const hit = await this.store.hit(key, entry.windowMs, by);
    // Answers can arrive out of order: the shared count only grows within a window.
    if (this.entries.get(key) === entry) {
      entry.shared = Math.max(entry.shared, hit.count);
      entry.resetAt = this.now() + hit.resetInMs;
    }
    return hit;
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sync();
    }, this.syncIntervalMs);
    this.timer.unref();
  }

  private sync(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      // Hits still waiting when their window ended belong to a window nobody counts any more.
      if (entry.resetAt <= now) this.entries.delete(key);
      // The shared store never fails (RateLimitStore: Redis away → counted in-process).
      else if (entry.unsynced > 0) void this.sendNow(key, entry, 0);
    }
    if (this.entries.size > 0) this.schedule();
  }
}

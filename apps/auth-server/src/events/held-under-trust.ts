import { LRUCache } from 'lru-cache';
import type { RevocationTrust } from './revocation-trust';

export interface HeldUnderTrustOptions {
  /** Values held at most; the least recently used go first. */
  max: number;
  /** Keys dropped recently, remembered at most (a burst of drops must not forget one early). */
  maxDropped: number;
  /** The longest a value is held, and how long a dropped key is kept out. */
  ttlMs: number;
}

/**
 * Rows read from PostgreSQL and held in memory only while this instance hears every event that
 * could drop them (RevocationTrust): read while trusted, kept only if trust did not change since the
 * read began and the key was not dropped meanwhile, emptied whenever trust ends or comes back.
 * The live access tokens and the registered clients both hold their rows this way.
 */
export class HeldUnderTrust<V extends object> {
  private readonly entries: LRUCache<string, V>;
  private readonly dropped: LRUCache<string, true>;

  constructor(
    private readonly trust: RevocationTrust,
    private readonly options: HeldUnderTrustOptions,
  ) {
    this.entries = new LRUCache({ max: options.max, ttl: options.ttlMs, ttlResolution: 0 });
    this.dropped = new LRUCache({ max: options.maxDropped, ttl: options.ttlMs, ttlResolution: 0 });
    trust.onChange(() => this.entries.clear());
  }

  /** The trust period to pass to hold() for a row about to be read or written; undefined: hold nothing. */
  period(): number | undefined {
    return this.trust.trustPeriod();
  }

  /** The held value, while trusted. */
  get(key: string): V | undefined {
    return this.trust.trustPeriod() === undefined ? undefined : this.entries.get(key);
  }

  /** Holds a value read or written while `period` was current, for at most `ttlMs` (and the ceiling). */
  hold(key: string, value: V, period: number | undefined, ttlMs = this.options.ttlMs): void {
    if (period === undefined || period !== this.trust.trustPeriod() || this.dropped.has(key)) return;
    const ttl = Math.min(ttlMs, this.options.ttlMs);
    if (ttl > 0) this.entries.set(key, value, { ttl });
  }

  /** Dropped at once, and kept out while reads that began before are still under way. */
  drop(key: string): void {
    this.dropped.set(key, true);
    this.entries.delete(key);
  }
}

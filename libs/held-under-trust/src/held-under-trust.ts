import { LRUCache } from 'lru-cache';

/** Whether values held in memory may be used: BusTrust (@platform/event-bus) is one. */
export interface TrustJudge {
  /** Names the current stretch of trust; undefined while nothing held may be used. */
  trustPeriod(): number | undefined;
  /** Called whenever trust ends and whenever it comes back. */
  onChange(handler: () => void): void;
}

export interface HeldUnderTrustOptions<V> {
  /** Values held at most; the least recently used go first. */
  max: number;
  /** The longest a value is held. */
  ttlMs: number;
  /** How long this value may be held (a token's remaining lifetime), ttlMs at most; nothing is held for 0 or less. */
  ttlOf?: (value: V) => number;
  /** Dropped keys remembered at most (a burst of drops must not forget one early). */
  maxDropped: number;
  /** How long a dropped key is kept out; ttlMs by default. */
  droppedTtlMs?: number;
}

/**
 * Values read from their source (PostgreSQL, the authorization server's introspection) and held
 * in memory only while this process hears every event that could drop them (a revocation, a
 * client change): a value is held only if trust did not change between the moment its read or
 * write began and the moment it came back, and its key was not dropped meanwhile. An event heard
 * or missed during a read is never overtaken by the value read before it. Whenever trust ends or
 * comes back, everything held is forgotten.
 *
 * There is no way to hold a value but through read() and afterWrite(): both take the trust
 * period themselves before the source is asked.
 */
export class HeldUnderTrust<V extends object> {
  private readonly entries: LRUCache<string, V>;
  private readonly dropped: LRUCache<string, true>;
  private readonly ttlOf: (value: V) => number;

  constructor(
    private readonly trust: TrustJudge,
    options: HeldUnderTrustOptions<V>,
  ) {
    const ceiling = options.ttlMs;
    this.entries = new LRUCache({ max: options.max, ttl: ceiling, ttlResolution: 0 });
    this.dropped = new LRUCache({ max: options.maxDropped, ttl: options.droppedTtlMs ?? ceiling, ttlResolution: 0 });
    const ttlOf = options.ttlOf;
    this.ttlOf = ttlOf ? (value) => Math.min(ttlOf(value), ceiling) : () => ceiling;
    trust.onChange(() => this.entries.clear());
  }

  /** The value held for `key` while trusted, else undefined: a synchronous look for a hot path, which goes on to read() without one. */
  peek(key: string): V | undefined {
    return this.trust.trustPeriod() === undefined ? undefined : this.entries.get(key);
  }

  /**
   * The value held for `key` while trusted; otherwise the one `load` reads from the source, held
   * under the rule above. Null is never held.
   */
  async read(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const period = this.trust.trustPeriod();
    const held = period === undefined ? undefined : this.entries.get(key);
    if (held) return held;
    const value = await load();
    if (value) this.holdIfStill(period, key, value);
    return value;
  }

  /** Runs `write` and holds the value it produced (`produced`: none for null), under read()'s rule. */
  async afterWrite<R>(write: () => Promise<R>, produced: (result: R) => { key: string; value: V } | null): Promise<R> {
    const period = this.trust.trustPeriod();
    const result = await write();
    const held = produced(result);
    if (held) this.holdIfStill(period, held.key, held.value);
    return result;
  }

  /** Whether `key` was dropped within the last droppedTtlMs. */
  wasDropped(key: string): boolean {
    // Most of the time nothing was dropped: no second lookup on a hot path.
    return this.dropped.size !== 0 && this.dropped.has(key);
  }

  /** Dropped at once, and kept out while reads that began before are still under way. */
  drop(key: string): void {
    this.dropped.set(key, true);
    this.entries.delete(key);
  }

  /** Forgets every value held (the keys dropped stay out). */
  clear(): void {
    this.entries.clear();
  }

  private holdIfStill(period: number | undefined, key: string, value: V): void {
    if (period === undefined || period !== this.trust.trustPeriod() || this.dropped.has(key)) return;
    const ttl = this.ttlOf(value);
    if (ttl > 0) this.entries.set(key, value, { ttl });
  }
}

import { LRUCache } from 'lru-cache';
import { randomUUID } from 'node:crypto';
import { type Admission, type BackoffPolicy, type Outcome, PENDING_LIFETIME_MS, type RateLimitStore, type WindowHit, lockAfterFailure } from './store';

interface WindowEntry {
  count: number;
  resetAt: number;
}

interface BackoffEntry {
  failures: number;
  /** Ticket -> when it stops counting. */
  pending: Map<string, number>;
  lockedUntil: number;
  forgetAt: number;
}

/** When a key is at its cap of attempts under way: retry in a second. */
const PENDING_RETRY_MS = 1_000;

/**
 * Counters in this process: the store without REDIS_URL, and the fallback of the Redis store
 * while Redis is away. Bounded (least recently used keys go first), so a flood of distinct
 * keys costs memory only up to `maxKeys`.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows: LRUCache<string, WindowEntry>;
  private readonly backoffs: LRUCache<string, BackoffEntry>;

  constructor(
    maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {
    this.windows = new LRUCache({ max: maxKeys });
    this.backoffs = new LRUCache({ max: maxKeys });
  }

  async hit(key: string, windowMs: number, by = 1): Promise<WindowHit> {
    return this.hitSync(key, windowMs, by);
  }

  hitSync(key: string, windowMs: number, by = 1): WindowHit {
    const now = this.now();
    let entry = this.windows.get(key);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, entry);
    }
    entry.count += by;
    return { count: entry.count, resetInMs: entry.resetAt - now };
  }

  async attempt(key: string, policy: BackoffPolicy): Promise<Admission> {
    return this.attemptSync(key, policy);
  }

  attemptSync(key: string, policy: BackoffPolicy): Admission {
    const now = this.now();
    const entry = this.entry(key, now);
    if (entry.lockedUntil > now) return { allowed: false, failures: entry.failures, retryInMs: entry.lockedUntil - now };
    for (const [ticket, until] of entry.pending) if (until <= now) entry.pending.delete(ticket);
    if (entry.pending.size >= policy.maxPending) return { allowed: false, failures: entry.failures, retryInMs: PENDING_RETRY_MS };
    const ticket = randomUUID();
    entry.pending.set(ticket, now + PENDING_LIFETIME_MS);
    entry.forgetAt = Math.max(entry.forgetAt, now + policy.forgetAfterMs);
    this.backoffs.set(key, entry);
    return { allowed: true, failures: entry.failures, retryInMs: 0, ticket };
  }

  async settle(key: string, policy: BackoffPolicy, outcome: Outcome, ticket: string): Promise<void> {
    this.settleSync(key, policy, outcome, ticket);
  }

  settleSync(key: string, policy: BackoffPolicy, outcome: Outcome, ticket: string): void {
    const now = this.now();
    const entry = this.entry(key, now);
    entry.pending.delete(ticket);
    if (outcome === 'cleared') {
      entry.failures = 0;
      entry.lockedUntil = 0;
    } else if (outcome === 'failed') {
      entry.failures += 1;
      const lock = lockAfterFailure(entry.failures, policy);
      if (lock > 0) entry.lockedUntil = Math.max(entry.lockedUntil, now + lock);
      entry.forgetAt = now + Math.max(policy.forgetAfterMs, lock);
    }
    this.backoffs.set(key, entry);
  }

  async close(): Promise<void> {
    this.windows.clear();
    this.backoffs.clear();
  }

  private entry(key: string, now: number): BackoffEntry {
    const entry = this.backoffs.get(key);
    return entry && entry.forgetAt > now ? entry : { failures: 0, pending: new Map(), lockedUntil: 0, forgetAt: 0 };
  }
}

import { LRUCache } from 'lru-cache';
import type { WindowHit } from './store';
import { type LimitRule, type Refusal, RefusalLog, refusalOf, type WindowCounter } from './window-counter';

export interface KeyedLimitOptions {
  /** Keys this process remembers as spent at most; the least recently refused go first (default 100,000). */
  maxSpentKeys?: number;
  now?: () => number;
}

/**
 * One limit (rule.max per rule.windowSeconds) over a space of keys, for limits that are not a
 * route's hook: keys known only as the request goes on (the authenticated client, a refresh
 * token's grant), or counted only after the work, by its outcome (a failure, a success).
 *
 * - hit(key): counts now and judges, before the work it limits.
 * - record(key): counts after the work; a key whose count reaches the limit is remembered as
 *   spent here until its window ends (the next one would be over it).
 * - refusalOf(key): the refusal of a key remembered as spent: no count, no I/O, synchronous, so
 *   a check on every request costs a map lookup.
 *
 * Counts are shared by every instance (the WindowCounter's store). What is remembered as spent is
 * this process's: another instance learns it from its own next count of the key, whose answer is
 * the shared count, so each instance admits at most the requests already under way plus one more
 * past the limit.
 */
export class KeyedLimit {
  /** Keys known to be over a limit: until when (this process's clock), and under which rule. */
  private readonly spent: LRUCache<string, { until: number; rule: LimitRule }>;
  private readonly windowMs: number;
  private readonly log: RefusalLog;
  private readonly now: () => number;

  constructor(
    readonly rule: LimitRule,
    private readonly counter: WindowCounter,
    options: KeyedLimitOptions = {},
  ) {
    this.spent = new LRUCache({ max: options.maxSpentKeys ?? 100_000 });
    this.windowMs = rule.windowSeconds * 1000;
    this.log = new RefusalLog(rule);
    this.now = options.now ?? Date.now;
  }

  /** The refusal of a key this process knows to be over its limit in the current window. */
  refusalOf(key: string): Refusal | undefined {
    const spent = this.spent.get(key);
    if (spent === undefined) return undefined;
    const left = spent.until - this.now();
    if (left <= 0) {
      this.spent.delete(key);
      return undefined;
    }
    this.log.refusedOne();
    return { rule: spent.rule, retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)) };
  }

  /** Counts one request of `key` before its work: the refusal when it is over the limit. */
  hit(key: string): Refusal | undefined | Promise<Refusal | undefined> {
    const known = this.refusalOf(key);
    if (known) return known;
    const hit = this.counter.hit(`${this.rule.name}:${key}`, this.windowMs, this.rule.max);
    if (hit instanceof Promise) return hit.then((answer) => this.judge(key, refusalOf(this.rule, answer)));
    return this.judge(key, refusalOf(this.rule, hit));
  }

  /**
   * Counts one for `key` after its work (nothing to refuse any more): when the count reaches the
   * limit, the next one would pass it, so the key is spent until its window ends, and the refusal
   * is the answer. Never rejects.
   */
  record(key: string): Refusal | undefined | Promise<Refusal | undefined> {
    const hit = this.counter.hit(`${this.rule.name}:${key}`, this.windowMs, this.rule.max);
    if (!(hit instanceof Promise)) return this.remember(key, hit);
    return hit.then(
      (answer) => this.remember(key, answer),
      () => undefined,
    );
  }

  /**
   * Remembers `key` as spent for as long as `refusal` says, under the refusal's rule: its own
   * count's verdict, or another limit's (a grant refused for its user's count).
   */
  spend(key: string, refusal: Refusal): void {
    const until = this.now() + refusal.retryAfterSeconds * 1000;
    if ((this.spent.get(key)?.until ?? 0) < until) this.spent.set(key, { until, rule: refusal.rule });
  }

  private judge(key: string, refusal: Refusal | undefined): Refusal | undefined {
    if (refusal) {
      this.spend(key, refusal);
      this.log.refusedOne();
    }
    return refusal;
  }

  /** A count of work done: the key is spent once the next one would be over the limit. */
  private remember(key: string, hit: WindowHit): Refusal | undefined {
    const refusal = refusalOf(this.rule, { count: hit.count + 1, resetInMs: hit.resetInMs });
    if (refusal) this.spend(key, refusal);
    return refusal;
  }
}

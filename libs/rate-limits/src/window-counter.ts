import { Logger } from '@nestjs/common';
import { LocalFirstWindows } from './local-first-windows';
import { MemoryRateLimitStore } from './memory-store';
import type { RateLimitStore, WindowHit } from './store';

/**
 * Counts one request of a key in a fixed window: at once when the count is known in this
 * process, a promise when the shared store is asked. Never rejects (RateLimitStore: Redis away
 * → counted in-process).
 */
export interface WindowCounter {
  hit(key: string, windowMs: number, max: number): WindowHit | Promise<WindowHit>;
  /** Adds what waits in this process to the shared store (on close). */
  flush(): Promise<void>;
}

/**
 * The counter over a store: the in-process store counted synchronously (a batching layer gains
 * it nothing); a shared one through LocalFirstWindows, which saves a round trip per hit.
 */
export function windowCounterFor(store: RateLimitStore): WindowCounter {
  if (store instanceof MemoryRateLimitStore) {
    return { hit: (key, windowMs) => store.hitSync(key, windowMs), flush: async () => undefined };
  }
  return new LocalFirstWindows(store);
}

/** What a limit is, as its refusals and logs name it. */
export interface LimitRule {
  /** Prefix of the limit's keys and its name in logs, e.g. "token:ip". */
  name: string;
  max: number;
  windowSeconds: number;
  /** Named in the error description, e.g. "the token endpoint". */
  subject: string;
}

/** A request refused under a limit, and when to come back. */
export interface Refusal {
  rule: LimitRule;
  retryAfterSeconds: number;
}

/** The refusal a window's count means under `rule`, or undefined within the limit. */
export function refusalOf(rule: LimitRule, hit: WindowHit): Refusal | undefined {
  if (hit.count <= rule.max) return undefined;
  return { rule, retryAfterSeconds: Math.max(1, Math.ceil(hit.resetInMs / 1000)) };
}

/** One warning per limit every 10 s at most, with how many requests it refused meanwhile. */
export class RefusalLog {
  private static readonly logger = new Logger('RateLimits');
  private refused = 0;
  private lastLog = 0;

  constructor(private readonly rule: LimitRule) {}

  refusedOne(): void {
    this.refused++;
    const now = Date.now();
    if (now - this.lastLog <= 10_000) return;
    RefusalLog.logger.warn(`${this.rule.name}: ${this.refused} request(s) refused (limit ${this.rule.max} per ${this.rule.windowSeconds} s)`);
    this.refused = 0;
    this.lastLog = now;
  }
}

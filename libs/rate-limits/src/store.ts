/** One request counted in a fixed window. */
export interface WindowHit {
  /** Requests in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends and the count starts again. */
  resetInMs: number;
}

/**
 * Fixed windows are counted on these stores (register-rate-limits.ts). The stores and
 * the login backoff are kept rather than rate-limiter-flexible (issue 14 asked): the backoff admits
 * at most `maxPending` attempts of a key at once and settles each by its ticket, so a burst of
 * parallel password guesses stops before the first failures are counted, which rate-limiter-flexible's
 * consume/penalty model does not express; and both stores share one outage rule (Redis away → the
 * in-process store, a frozen Redis bounded by a deadline) that the hardening suites pin.
 *
 * Exponential backoff for attempts that may fail (passwords): the first `freeFailures`
 * failures are free; each one after that locks the key for twice as long as the previous,
 * from `baseDelayMs` up to `maxDelayMs`. Failures are forgotten `forgetAfterMs` after the
 * last one. At most `maxPending` attempts of one key are under way at once, so a burst of
 * parallel guesses gets no further than `maxPending` before the first failures lock the key.
 */
export interface BackoffPolicy {
  freeFailures: number;
  baseDelayMs: number;
  maxDelayMs: number;
  forgetAfterMs: number;
  maxPending: number;
}

export interface Admission {
  allowed: boolean;
  /** Failures counted so far. */
  failures: number;
  /** When refused: milliseconds until another attempt may be made. */
  retryInMs: number;
  /** When admitted: names the attempt for settle(). */
  ticket?: string;
}

/**
 * An attempt not settled within this time (its process died, say) no longer counts as under
 * way: a crash cannot leave a key blocked. Password checks take milliseconds.
 */
export const PENDING_LIFETIME_MS = 30_000;

/**
 * How an admitted attempt ended: `failed` counts a failure (and may lock the key);
 * `cleared` forgets every failure (a successful sign-in, for its account); `forgiven` counts
 * nothing (a success for an address shared with others; an attempt the server could not check).
 */
export type Outcome = 'failed' | 'cleared' | 'forgiven';

/**
 * Where counters live: Redis shared by every instance, or this process. Every method is
 * atomic per key; none throws (a Redis store that loses Redis counts in-process meanwhile).
 */
export interface RateLimitStore {
  /** Counts `by` requests (default 1) for `key` in a fixed window of `windowMs`. */
  hit(key: string, windowMs: number, by?: number): Promise<WindowHit>;
  /**
   * Admits one attempt under a backoff policy, or refuses it (without counting anything)
   * while the key is locked or `maxPending` attempts are under way. Every admitted attempt
   * must be settled.
   */
  attempt(key: string, policy: BackoffPolicy): Promise<Admission>;
  /** Ends an admitted attempt (its ticket). */
  settle(key: string, policy: BackoffPolicy, outcome: Outcome, ticket: string): Promise<void>;
  close(): Promise<void>;
}

/** The lock that follows the n-th failure (1-based) under a policy: 0 while failures are free. */
export function lockAfterFailure(failures: number, policy: Pick<BackoffPolicy, 'freeFailures' | 'baseDelayMs' | 'maxDelayMs'>): number {
  if (failures <= policy.freeFailures) return 0;
  const exponent = Math.min(failures - policy.freeFailures - 1, 52);
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
}

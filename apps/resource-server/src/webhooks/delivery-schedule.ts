/**
 * When a failed delivery is attempted again: base × 3^(n-1) after its n-th attempt, at most a
 * day, ±20 % random jitter so that endpoints that failed together are not retried together
 * (Standard Webhooks, "Deliverability and reliability"). With the defaults (10 s, 12 attempts)
 * the attempts span ~3 days: 10 s, 30 s, 1.5 min, 4.5 min, 13.5 min, 40 min, 2 h, 6 h, 18 h, 1 d, 1 d.
 */
export const MAX_RETRY_DELAY_SECONDS = 86_400;
/** A Retry-After shorter than this is read as this: an endpoint cannot make us retry in a loop. */
export const MIN_RETRY_AFTER_SECONDS = 1;

export function backoffSeconds(attempt: number, baseSeconds: number, random: () => number = Math.random): number {
  const delay = Math.min(baseSeconds * 3 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_SECONDS);
  return delay * (0.8 + 0.4 * random());
}

/**
 * RFC 9110 §10.2.3: Retry-After is "a non-negative decimal integer indicating the number of
 * seconds to delay after the response is received" or an HTTP-date. The value, clamped to
 * [MIN_RETRY_AFTER_SECONDS, MAX_RETRY_DELAY_SECONDS]; undefined when absent or unreadable.
 */
export function retryAfterSeconds(header: string | string[] | undefined, now: Date): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  let seconds: number;
  if (/^\d+$/.test(value)) seconds = Number(value);
  else {
    // An HTTP-date names its day and month; Date.parse alone would read "-5" as a year.
    const at = /[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(at)) return undefined;
    seconds = (at - now.getTime()) / 1000;
  }
  return Math.min(Math.max(seconds, MIN_RETRY_AFTER_SECONDS), MAX_RETRY_DELAY_SECONDS);
}

/**
 * The delay before the next attempt after a failed one: the receiver's Retry-After when it gave
 * one (it knows when it will be back), else the backoff.
 */
export function nextAttemptDelaySeconds(attempt: number, baseSeconds: number, retryAfter: number | undefined, random?: () => number): number {
  return retryAfter ?? backoffSeconds(attempt, baseSeconds, random);
}

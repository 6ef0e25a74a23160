import { backoffSeconds, MAX_RETRY_DELAY_SECONDS, nextAttemptDelaySeconds, retryAfterSeconds } from './delivery-schedule';

describe('the retry schedule', () => {
  const middle = () => 0.5;

  it('triples from the base, capped at a day, 12 attempts spanning about 3 days', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffSeconds(attempt, 10, middle))).toEqual([10, 30, 90, 270]);
    expect(backoffSeconds(20, 10, middle)).toBe(MAX_RETRY_DELAY_SECONDS);
    const span = Array.from({ length: 11 }, (_, i) => backoffSeconds(i + 1, 10, middle)).reduce((a, b) => a + b, 0);
    expect(span / 86_400).toBeGreaterThan(3);
    expect(span / 86_400).toBeLessThan(3.2);
  });

  it('jitters by ±20 %', () => {
    expect(backoffSeconds(2, 10, () => 0)).toBe(24);
    expect(backoffSeconds(2, 10, () => 0.999999)).toBeCloseTo(36, 3);
  });

  it('reads Retry-After as seconds or an HTTP-date (RFC 9110 §10.2.3), within bounds', () => {
    const now = new Date('2026-11-30T10:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('0', now)).toBe(1);
    expect(retryAfterSeconds('99999999', now)).toBe(MAX_RETRY_DELAY_SECONDS);
    expect(retryAfterSeconds('Mon, 30 Nov 2026 10:05:00 GMT', now)).toBe(300);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds('-5', now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
  });

  it('prefers the receiver’s Retry-After to the backoff', () => {
    expect(nextAttemptDelaySeconds(1, 10, 3, middle)).toBe(3);
    expect(nextAttemptDelaySeconds(1, 10, undefined, middle)).toBe(10);
  });
});

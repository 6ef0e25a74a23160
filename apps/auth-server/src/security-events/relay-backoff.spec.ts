import { MAX_RELAY_DELAY_SECONDS, relayBackoffSeconds } from './relay-backoff';

describe('relayBackoffSeconds', () => {
  it.each([
    [1, 1],
    [2, 2],
    [3, 4],
    [9, 256],
    [10, MAX_RELAY_DELAY_SECONDS],
    [1_000, MAX_RELAY_DELAY_SECONDS],
  ])('after attempt %i waits %i s (no jitter)', (attempt, seconds) => {
    expect(relayBackoffSeconds(attempt, 1, () => 0.5)).toBe(seconds);
  });

  it('jitters within ±20 %', () => {
    expect(relayBackoffSeconds(3, 1, () => 0)).toBeCloseTo(3.2);
    expect(relayBackoffSeconds(3, 1, () => 1)).toBeCloseTo(4.8);
  });
});

import { LimitTrips } from './limit-trips';

describe('LimitTrips', () => {
  it('counts the first refusal of a caller under a limit, not the next ones until its Retry-After has passed', () => {
    const trips = new LimitTrips();
    expect(trips.tripped('token:ip', '203.0.113.7', 30, 0)).toBe(true);
    expect(trips.tripped('token:ip', '203.0.113.7', 29, 1_000)).toBe(false);
    expect(trips.tripped('token:ip', '203.0.113.7', 1, 29_999)).toBe(false);
    expect(trips.tripped('token:ip', '203.0.113.7', 30, 30_000)).toBe(true);
  });

  it('keeps limits and callers apart', () => {
    const trips = new LimitTrips();
    expect(trips.tripped('token:ip', '203.0.113.7', 30, 0)).toBe(true);
    expect(trips.tripped('register:ip', '203.0.113.7', 30, 0)).toBe(true);
    expect(trips.tripped('token:ip', '203.0.113.8', 30, 0)).toBe(true);
  });

  it('forgets the oldest caller past its bound, whose next refusal is then a trip again', () => {
    const trips = new LimitTrips();
    for (let i = 0; i <= 10_000; i++) trips.tripped('token:ip', `caller-${i}`, 60, 0);
    expect(trips.tripped('token:ip', 'caller-0', 60, 0)).toBe(true);
    expect(trips.tripped('token:ip', 'caller-10000', 60, 0)).toBe(false);
  });
});

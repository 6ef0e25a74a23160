import { freshnessSeconds } from './cache-lifetime';

const bounds = { min: 60, max: 86_400 };

describe('freshnessSeconds (RFC 9111 §4.2, clamped)', () => {
  it.each([
    ['max-age within the bounds', { 'cache-control': 'public, max-age=600' }, 600],
    ['max-age minus Age', { 'cache-control': 'max-age=600', age: '100' }, 500],
    ['max-age below the floor', { 'cache-control': 'max-age=5' }, 60],
    ['max-age above the ceiling', { 'cache-control': 'max-age=31536000' }, 86_400],
    ['no-store: the floor', { 'cache-control': 'no-store' }, 60],
    ['no-cache: the floor', { 'cache-control': 'no-cache, max-age=600' }, 60],
    ['nothing: the floor (no heuristic freshness)', {}, 60],
    ['a malformed max-age: the floor', { 'cache-control': 'max-age=ten' }, 60],
    ['Expires relative to Date', { expires: 'Mon, 23 Nov 2026 21:10:00 GMT', date: 'Mon, 23 Nov 2026 21:00:00 GMT' }, 600],
    ['max-age wins over Expires', { 'cache-control': 'max-age=120', expires: 'Mon, 23 Nov 2026 21:10:00 GMT', date: 'Mon, 23 Nov 2026 21:00:00 GMT' }, 120],
  ])('%s', (_name, headers, expected) => expect(freshnessSeconds(headers, bounds)).toBe(expected));
});

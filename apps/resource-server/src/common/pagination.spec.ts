import { InvalidRequestError } from '@platform/oauth-errors';
import { afterId, afterPosition, byId, byPosition, encodeCursor, idPage, pageQuery, positionPage, toPage } from './pagination';

const rows = (ids: string[]) => ids.map((id, position) => ({ id, position }));

describe('pageQuery', () => {
  it.each([
    [{}, { limit: 20 }],
    [{ limit: '1' }, { limit: 1 }],
    [{ limit: '100', cursor: 'abc' }, { limit: 100, cursor: 'abc' }],
  ])('accepts %j', (input, expected) => {
    expect(pageQuery.parse(input)).toEqual(expected);
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: '2.5' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ cursor: '' }, 'cursor'],
    [{ cursor: 'x'.repeat(513) }, 'cursor'],
  ])('refuses %j, naming %s', (input, field) => {
    const result = pageQuery.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0].path).toEqual([field]);
  });
});

describe('cursors', () => {
  it('round-trip an id key', () => {
    expect(idPage({ limit: 5, cursor: encodeCursor(['crs-42']) })).toEqual({ take: 5, afterId: 'crs-42' });
  });

  it('round-trip a (position, id) key', () => {
    expect(positionPage({ limit: 5, cursor: encodeCursor([3, 'sec-1']) })).toEqual({ take: 5, after: { position: 3, id: 'sec-1' } });
  });

  it('are opaque base64url', () => {
    expect(encodeCursor(['a b/c'])).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['not base64 JSON', '%%%'],
    ['JSON of the wrong shape', Buffer.from('{"id":"x"}').toString('base64url')],
    ['a position cursor on an id list', encodeCursor([1, 'x'])],
    ['an empty id', encodeCursor([''])],
  ])('refuses %s with invalid_request naming the cursor', (_name, cursor) => {
    expect(() => idPage({ limit: 5, cursor })).toThrow(InvalidRequestError);
    expect(() => idPage({ limit: 5, cursor })).toThrow(/^cursor: /);
  });

  it('refuses an id cursor on a position list', () => {
    expect(() => positionPage({ limit: 5, cursor: encodeCursor(['x']) })).toThrow(/^cursor: /);
  });
});

describe('keyset conditions', () => {
  it('start at the beginning without a cursor', () => {
    expect(afterId({ take: 3 })).toEqual({});
    expect(afterPosition({ take: 3 })).toEqual({});
  });

  it('continue strictly after the cursor key', () => {
    expect(afterId({ take: 3, afterId: 'b' })).toEqual({ id: { gt: 'b' } });
    expect(afterPosition({ take: 3, after: { position: 2, id: 'b' } })).toEqual({
      OR: [{ position: { gt: 2 } }, { position: 2, id: { gt: 'b' } }],
    });
  });
});

describe('toPage', () => {
  const view = (row: { id: string }) => row.id;

  it('has no next cursor when the extra row is missing', () => {
    expect(toPage(rows(['a', 'b']), 2, byId, view)).toEqual({ data: ['a', 'b'], next_cursor: null });
  });

  it('drops the extra row and points the cursor at the last row returned', () => {
    const page = toPage(rows(['a', 'b', 'c']), 2, byId, view);
    expect(page.data).toEqual(['a', 'b']);
    expect(idPage({ limit: 2, cursor: page.next_cursor ?? undefined }).afterId).toBe('b');
  });

  it('uses the list’s own key', () => {
    const page = toPage(rows(['a', 'b', 'c']), 2, byPosition, view);
    expect(positionPage({ limit: 2, cursor: page.next_cursor ?? undefined }).after).toEqual({ position: 1, id: 'b' });
  });

  it('is empty for no rows', () => {
    expect(toPage([], 20, byId, view)).toEqual({ data: [], next_cursor: null });
  });
});

import { parseTokenTypeHint } from './token-type-hint';

describe('parseTokenTypeHint (RFC 7009 §2.1, RFC 7662 §2.1)', () => {
  it.each([
    ['access_token', 'access_token'],
    ['refresh_token', 'refresh_token'],
    [undefined, undefined],
    ['', undefined],
    ['id_token', undefined],
    ['Access_Token', undefined],
  ])('%p → %p (an unknown hint is ignored: the search covers every token type)', (value, expected) => {
    expect(parseTokenTypeHint(value)).toBe(expected);
  });
});

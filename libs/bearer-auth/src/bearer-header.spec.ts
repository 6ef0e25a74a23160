import { InvalidRequestError } from '@platform/oauth-errors';
import { bearerTokenOf } from './bearer-header';
import { MissingTokenError } from './challenges';

describe('bearerTokenOf (RFC 6750 §2.1)', () => {
  it.each([
    ['Bearer abc.DEF-ghi_jkl~mno+pqr/stu==', 'abc.DEF-ghi_jkl~mno+pqr/stu=='],
    ['bearer abc', 'abc'],
    ['Bearer   abc', 'abc'],
  ])('%s → the token', (header, token) => {
    expect(bearerTokenOf(header)).toBe(token);
  });

  it('no header: anonymous', () => {
    expect(bearerTokenOf(undefined)).toBeUndefined();
  });

  it.each(['Basic YTpi', 'Token abc', 'Bearerabc'])('%s: another scheme is answered like no credentials', (header) => {
    expect(() => bearerTokenOf(header)).toThrow(MissingTokenError);
  });

  it('several Authorization headers: no credentials we can use', () => {
    expect(() => bearerTokenOf(['Bearer a', 'Bearer b'])).toThrow(MissingTokenError);
  });

  it.each(['Bearer', 'Bearer ', 'Bearer a b', 'Bearer "quoted"', 'Bearer a=b'])('%s: malformed, invalid_request', (header) => {
    expect(() => bearerTokenOf(header)).toThrow(InvalidRequestError);
  });
});

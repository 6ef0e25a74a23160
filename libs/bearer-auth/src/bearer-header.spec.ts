import { InvalidRequestError } from '@platform/oauth-errors';
import { bearerTokenOf, dpopTokenOf, presentedTokenOf } from './bearer-header';
import { MissingTokenError } from './bearer-header';

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

describe('dpopTokenOf (RFC 9449 §7.1)', () => {
  it.each([
    ['DPoP abc.DEF-ghi_jkl~mno+pqr/stu==', 'abc.DEF-ghi_jkl~mno+pqr/stu=='],
    ['dpop abc', 'abc'],
    ['DPOP   abc', 'abc'],
  ])('%s → the token (the scheme case-insensitive)', (header, token) => {
    expect(dpopTokenOf(header)).toBe(token);
  });

  it.each([undefined, 'Bearer abc', 'DPoPabc', ['DPoP a', 'DPoP b']])('%s: not the DPoP scheme', (header) => {
    expect(dpopTokenOf(header)).toBeUndefined();
  });

  it.each(['DPoP', 'DPoP ', 'DPoP a b', 'DPoP "quoted"', 'DPoP\tabc'])('%s: malformed, invalid_request', (header) => {
    expect(() => dpopTokenOf(header)).toThrow(InvalidRequestError);
  });
});

describe('presentedTokenOf', () => {
  it('names the scheme the token came with', () => {
    expect(presentedTokenOf('DPoP abc')).toEqual({ scheme: 'DPoP', token: 'abc' });
    expect(presentedTokenOf('bearer abc')).toEqual({ scheme: 'Bearer', token: 'abc' });
    expect(presentedTokenOf(undefined)).toBeUndefined();
  });

  it('answers another scheme like no credentials', () => {
    expect(() => presentedTokenOf('Basic YTpi')).toThrow(MissingTokenError);
  });
});

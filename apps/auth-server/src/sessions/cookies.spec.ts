import { clearedCookie, parseCookies, serializeCookie } from './cookies';
import { sessionCookieName, sessionCookieOptions } from './session-cookie';

describe('cookies', () => {
  it.each([
    ['the only cookie', 'session=abc', 'abc'],
    ['among others, with spaces', 'a=1;  session=abc ; b=2', 'abc'],
    ['the first of two', 'session=first; session=second', 'first'],
    ['not a prefix match', 'xsession=abc; session_old=def', undefined],
    ['no header', undefined, undefined],
  ])('reads %s', (_name, header, expected) => {
    expect(parseCookies(header)['session']).toBe(expected);
  });

  it('names and shapes the session cookie for http and https origins', () => {
    const ttl = { accessToken: 1, refreshToken: 1, authorizationCode: 1, session: 3600, refreshReuseGrace: 30 };
    expect(sessionCookieName({ secureCookies: true })).toBe('__Host-session');
    expect(sessionCookieName({ secureCookies: false })).toBe('session');
    expect(serializeCookie('__Host-session', 'v', sessionCookieOptions({ secureCookies: true, ttl }))).toBe(
      '__Host-session=v; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax',
    );
    expect(serializeCookie('session', 'v', sessionCookieOptions({ secureCookies: false, ttl }))).toBe(
      'session=v; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax',
    );
  });

  it('clears a cookie with the options it was set with', () => {
    expect(clearedCookie('session', { path: '/', httpOnly: true, sameSite: 'Lax', secure: false })).toBe('session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
  });

  it('encodes anything that could break the header', () => {
    expect(serializeCookie('session', 'a;b', { path: '/', httpOnly: true, sameSite: 'Lax', secure: false })).toBe(
      'session=a%3Bb; Path=/; HttpOnly; SameSite=Lax',
    );
  });
});

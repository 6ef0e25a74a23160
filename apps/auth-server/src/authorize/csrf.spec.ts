import type { AuthConfig } from '../config/auth-config';
import { parseCookies, type RequestCookies } from '../sessions/cookies';
import { CSRF_PURPOSE, CsrfTokens } from './csrf';

/** A browser: the cookies it sends, and the Set-Cookie values it received (kept in its jar). */
function browser(secureCookies = false) {
  const jar = new Map<string, string>();
  const setCookies: string[] = [];
  const csrf = new CsrfTokens({ secureCookies } as AuthConfig);
  const cookies = (): RequestCookies => parseCookies([...jar].map(([name, value]) => `${name}=${value}`).join('; '));
  /** A page with a form: the token, and the secret cookie planted when the browser had none. */
  const issue = (purpose: string): string => {
    const { token, setCookie } = csrf.issueToken(cookies(), purpose);
    if (setCookie) {
      setCookies.push(setCookie);
      const [name, value] = setCookie.split(';')[0].split('=');
      jar.set(name, value);
    }
    return token;
  };
  const verify = (token: string | undefined, purpose: string) => csrf.verifyToken(cookies(), token, purpose);
  return { csrf, jar, setCookies, issue, verify };
}

describe('CsrfTokens', () => {
  it('accepts the token it issued, for the same purpose and cookie', () => {
    const { issue, verify } = browser();
    expect(verify(issue(CSRF_PURPOSE.login), CSRF_PURPOSE.login)).toBe(true);
  });

  it('sets the secret cookie once (the browser then sends it), HttpOnly, and __Host- on https', () => {
    const { issue, setCookies } = browser(true);
    issue('login');
    issue('login');
    issue(CSRF_PURPOSE.consent('s1'));
    expect(setCookies).toHaveLength(1);
    expect(setCookies[0]).toMatch(/^__Host-csrf=[\w-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  });

  it('issues a different string every time (salted)', () => {
    const { issue } = browser();
    expect(issue('login')).not.toBe(issue('login'));
  });

  it.each([
    ['no token', () => undefined],
    ['a token for another purpose', (issue: (purpose: string) => string) => issue(CSRF_PURPOSE.consent('s1'))],
    ['a token with a changed MAC', (issue: (purpose: string) => string) => `${issue('login').slice(0, -2)}AA`],
    ['garbage', () => 'not.a.token'],
  ])('refuses %s', (_name, make) => {
    const { issue, verify } = browser();
    issue('login');
    expect(verify(make(issue), 'login')).toBe(false);
  });

  it('refuses a token from another browser (another cookie secret)', () => {
    const first = browser();
    const second = browser();
    const token = first.issue('login');
    second.issue('login');
    expect(second.verify(token, 'login')).toBe(false);
  });

  it('refuses everything when the browser sent no cookie', () => {
    const { issue, verify, jar } = browser();
    const token = issue('login');
    jar.clear();
    expect(verify(token, 'login')).toBe(false);
  });

  it('binds consent tokens to the session', () => {
    const { issue, verify } = browser();
    const token = issue(CSRF_PURPOSE.consent('session-a'));
    expect(verify(token, CSRF_PURPOSE.consent('session-a'))).toBe(true);
    expect(verify(token, CSRF_PURPOSE.consent('session-b'))).toBe(false);
    expect(verify(token, CSRF_PURPOSE.consent('session-a', 'openid students:write'))).toBe(false);
  });
});

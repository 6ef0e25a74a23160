import type { AuthConfig } from '../config/auth-config';
import { parseCookies, type RequestCookies } from '../sessions/cookies';
import { CONSENT_TOKEN_TTL_SECONDS, type ConsentedRequest, consentDigest, CSRF_PURPOSE, CsrfTokens } from './csrf';

/** A browser: the cookies it sends, and the Set-Cookie values it received (kept in its jar). */
function browser(secureCookies = false) {
  const jar = new Map<string, string>();
  const setCookies: string[] = [];
  const csrf = new CsrfTokens({ secureCookies } as AuthConfig);
  const cookies = (): RequestCookies => parseCookies([...jar].map(([name, value]) => `${name}=${value}`).join('; '));
  /** A page with a form: the token, and the secret cookie planted when the browser had none. */
  const issue = (purpose: string, now?: Date): string => {
    const { token, setCookie } = csrf.issueToken(cookies(), purpose, now);
    if (setCookie) {
      setCookies.push(setCookie);
      const [name, value] = setCookie.split(';')[0].split('=');
      jar.set(name, value);
    }
    return token;
  };
  const verify = (token: string | undefined, purpose: string, options?: { maxAgeSeconds?: number; now?: Date }) =>
    csrf.verifyToken(cookies(), token, purpose, options) !== null;
  return { csrf, jar, setCookies, issue, verify };
}

/** What a consent page showed. */
const REQUEST: ConsentedRequest = {
  client: { id: 'client-a' },
  redirectUri: 'https://a.example/cb',
  scope: 'openid students:read',
  resource: 'https://platform.example',
  codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  state: 'state-a',
  nonce: 'nonce-a',
};

describe('CsrfTokens', () => {
  it('accepts the token it issued, for the same purpose and cookie', () => {
    const { issue, verify } = browser();
    expect(verify(issue(CSRF_PURPOSE.login), CSRF_PURPOSE.login)).toBe(true);
  });

  it('sets the secret cookie once (the browser then sends it), HttpOnly, and __Host- on https', () => {
    const { issue, setCookies } = browser(true);
    issue('login');
    issue('login');
    issue(CSRF_PURPOSE.consent('s1', REQUEST));
    expect(setCookies).toHaveLength(1);
    expect(setCookies[0]).toMatch(/^__Host-csrf=[\w-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  });

  it('issues a different string every time (salted)', () => {
    const { issue } = browser();
    expect(issue('login')).not.toBe(issue('login'));
  });

  it.each([
    ['no token', () => undefined],
    ['a token for another purpose', (issue: (purpose: string) => string) => issue(CSRF_PURPOSE.consent('s1', REQUEST))],
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
    const token = issue(CSRF_PURPOSE.consent('session-a', REQUEST));
    expect(verify(token, CSRF_PURPOSE.consent('session-a', REQUEST))).toBe(true);
    expect(verify(token, CSRF_PURPOSE.consent('session-b', REQUEST))).toBe(false);
  });

  it.each<[string, Partial<ConsentedRequest>]>([
    ["another client (client B's id)", { client: { id: 'client-b' } }],
    ['another redirect URI', { redirectUri: 'https://b.example/cb' }],
    ['the redirect URI spelled otherwise', { redirectUri: 'https://a.example/cb/' }],
    ['a wider scope', { scope: 'openid students:read students:write' }],
    ['another resource', { resource: 'https://other.example' }],
    ["another PKCE challenge (the attacker's verifier)", { codeChallenge: 'x'.repeat(43) }],
    ['another state', { state: 'state-b' }],
    ['no state', { state: undefined }],
    ['another nonce', { nonce: 'nonce-b' }],
    ['no nonce', { nonce: undefined }],
    ["a dpop_jkt (RFC 9449 §10: the code bound to the attacker's key)", { dpopJkt: 'k'.repeat(43) }],
  ])('a consent token does not approve the request with %s', (_name, change) => {
    const { issue, verify } = browser();
    const token = issue(CSRF_PURPOSE.consent('session-a', REQUEST));
    expect(verify(token, CSRF_PURPOSE.consent('session-a', { ...REQUEST, ...change }))).toBe(false);
  });

  it('digests the request unambiguously: a value cannot move into its neighbour', () => {
    // A plain "|" join would give both the same string.
    const split = consentDigest('s', { ...REQUEST, state: 'a|b', nonce: 'c' });
    const shifted = consentDigest('s', { ...REQUEST, state: 'a', nonce: 'b|c' });
    expect(split).not.toBe(shifted);
    // An absent value is not the string "null", nor empty.
    expect(consentDigest('s', { ...REQUEST, state: undefined })).not.toBe(consentDigest('s', { ...REQUEST, state: 'null' }));
    expect(consentDigest('s', { ...REQUEST, state: undefined })).not.toBe(consentDigest('s', { ...REQUEST, state: '' }));
    expect(consentDigest('s', REQUEST)).toBe(consentDigest('s', { ...REQUEST }));
  });

  it('carries a random id and its issue time, both under the MAC', () => {
    const { csrf, issue, jar } = browser();
    const issuedAt = new Date('2026-11-28T12:00:00Z');
    const token = issue('login', issuedAt);
    const cookies = Object.fromEntries(jar);
    const verified = csrf.verifyToken(cookies, token, 'login');
    expect(verified).toEqual({ id: expect.stringMatching(/^[\w-]{22}$/), issuedAt });
    expect(csrf.verifyToken(cookies, issue('login'), 'login')?.id).not.toBe(verified?.id);
    const [id, time, tag] = token.split('.');
    expect(csrf.verifyToken(cookies, `${id}.${Number(time) + 3600}.${tag}`, 'login')).toBeNull();
    expect(csrf.verifyToken(cookies, `${issue('login').split('.')[0]}.${time}.${tag}`, 'login')).toBeNull();
  });

  it(`refuses a token older than maxAgeSeconds (consent forms: ${CONSENT_TOKEN_TTL_SECONDS} s), accepts it up to then`, () => {
    const { issue, verify } = browser();
    const issuedAt = new Date('2026-11-28T12:00:00Z');
    const token = issue('login', issuedAt);
    const after = (seconds: number) => new Date(issuedAt.getTime() + seconds * 1000);
    const maxAgeSeconds = CONSENT_TOKEN_TTL_SECONDS;
    expect(verify(token, 'login', { maxAgeSeconds, now: after(CONSENT_TOKEN_TTL_SECONDS) })).toBe(true);
    expect(verify(token, 'login', { maxAgeSeconds, now: after(CONSENT_TOKEN_TTL_SECONDS + 1) })).toBe(false);
    // Without a maximum age (the sign-in form), age does not matter.
    expect(verify(token, 'login', { now: after(30 * 86_400) })).toBe(true);
  });
});

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthConfig } from '../config/auth-config';
import { CSRF_PURPOSE, CsrfTokens } from './csrf';

/** A browser and one request/response of it: Set-Cookie goes into the jar. */
function browser(secureCookies = false) {
  const jar = new Map<string, string>();
  const setCookies: string[] = [];
  const csrf = new CsrfTokens({ secureCookies } as AuthConfig);
  const exchange = () => {
    const request = {
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
    } as unknown as FastifyRequest;
    const reply = {
      header: (name: string, value: string) => {
        expect(name).toBe('set-cookie');
        setCookies.push(value);
        const [pair] = value.split(';');
        const [cookieName, cookieValue] = pair.split('=');
        jar.set(cookieName, cookieValue);
        return reply;
      },
    } as unknown as FastifyReply;
    return { request, reply };
  };
  return { csrf, jar, setCookies, exchange };
}

describe('CsrfTokens', () => {
  it('accepts the token it issued, for the same purpose and cookie', () => {
    const { csrf, exchange } = browser();
    const page = exchange();
    const token = csrf.issue(page.request, page.reply, CSRF_PURPOSE.login);
    expect(csrf.verify(exchange().request, token, CSRF_PURPOSE.login)).toBe(true);
  });

  it('sets the secret cookie once, HttpOnly, and __Host- on https', () => {
    const { csrf, exchange, setCookies } = browser(true);
    const page = exchange();
    csrf.issue(page.request, page.reply, 'login');
    csrf.issue(page.request, page.reply, 'login');
    const next = exchange();
    csrf.issue(next.request, next.reply, 'login');
    expect(setCookies).toHaveLength(1);
    expect(setCookies[0]).toMatch(/^__Host-csrf=[\w-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  });

  it('issues a different string every time (salted)', () => {
    const { csrf, exchange } = browser();
    const { request, reply } = exchange();
    expect(csrf.issue(request, reply, 'login')).not.toBe(csrf.issue(request, reply, 'login'));
  });

  it.each([
    ['no token', () => undefined],
    ['a token for another purpose', (c: CsrfTokens, r: FastifyRequest, p: FastifyReply) => c.issue(r, p, CSRF_PURPOSE.consent('s1'))],
    ['a token with a changed MAC', (c: CsrfTokens, r: FastifyRequest, p: FastifyReply) => `${c.issue(r, p, 'login').slice(0, -2)}AA`],
    ['garbage', () => 'not.a.token'],
  ])('refuses %s', (_name, make) => {
    const { csrf, exchange } = browser();
    const { request, reply } = exchange();
    csrf.issue(request, reply, 'login');
    const later = exchange();
    expect(csrf.verify(later.request, make(csrf, later.request, later.reply), 'login')).toBe(false);
  });

  it('refuses a token from another browser (another cookie secret)', () => {
    const first = browser();
    const second = browser();
    const a = first.exchange();
    const token = first.csrf.issue(a.request, a.reply, 'login');
    const b = second.exchange();
    second.csrf.issue(b.request, b.reply, 'login');
    expect(second.csrf.verify(second.exchange().request, token, 'login')).toBe(false);
  });

  it('refuses everything when the browser sent no cookie', () => {
    const { csrf, exchange, jar } = browser();
    const { request, reply } = exchange();
    const token = csrf.issue(request, reply, 'login');
    jar.clear();
    expect(csrf.verify(exchange().request, token, 'login')).toBe(false);
  });

  it('binds consent tokens to the session', () => {
    const { csrf, exchange } = browser();
    const { request, reply } = exchange();
    const token = csrf.issue(request, reply, CSRF_PURPOSE.consent('session-a'));
    const later = exchange().request;
    expect(csrf.verify(later, token, CSRF_PURPOSE.consent('session-a'))).toBe(true);
    expect(csrf.verify(later, token, CSRF_PURPOSE.consent('session-b'))).toBe(false);
    expect(csrf.verify(later, token, CSRF_PURPOSE.consent('session-a', 'openid students:write'))).toBe(false);
  });
});

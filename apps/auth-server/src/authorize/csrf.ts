import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { generateOpaqueToken } from '../crypto/tokens';
import { type CookieOptions, type RequestCookies, serializeCookie } from '../sessions/cookies';
import { isWellFormedCookieToken } from '../sessions/session-cookie';

/** The form field that carries the token. */
export const CSRF_FIELD = '_csrf';

/**
 * Synchronizer tokens for the login and consent forms, bound to a cookie.
 *
 * The browser holds a random secret in an HttpOnly cookie; each form carries
 * `salt.HMAC(secret, salt|purpose)`. A cross-site page can neither read the cookie nor the
 * form, so it cannot produce a matching pair. The purpose binds a token to one form: the
 * consent token also names the login session, so a consent form rendered for one session
 * cannot approve for another (a different user signed in in another tab, or a session
 * planted by login CSRF), and the scope it showed. The salt changes on every render, so the
 * token in the page is never the same string twice (BREACH).
 *
 * Why not @fastify/csrf-protection: it implements the same cookie-secret scheme, but its
 * check answers a failure itself through Fastify's error handler (a JSON error), whereas
 * these HTML forms need to re-render the page with a message; binding a token to the
 * session would need an extra HMAC key that the configuration does not have; and it needs
 * @fastify/cookie, whose dynamic import() of the ESM-only `cookie` package fails under Jest
 * (see sessions/cookies.ts).
 */
@Injectable()
export class CsrfTokens {
  private readonly cookieName: string;
  private readonly cookieOptions: CookieOptions;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    this.cookieName = config.secureCookies ? '__Host-csrf' : 'csrf';
    // Lax like the session cookie: present whenever one of our own forms posts back.
    this.cookieOptions = { path: '/', httpOnly: true, sameSite: 'Lax', secure: config.secureCookies };
  }

  /**
   * A token for a form, from the request's cookies as values; with the Set-Cookie header value
   * that plants the secret when the browser has none yet.
   */
  issueToken(cookies: RequestCookies, purpose: string): { token: string; setCookie?: string } {
    const secret = this.secret(cookies);
    if (secret) return { token: tokenFor(secret, purpose) };
    const planted = this.plant();
    return { token: tokenFor(planted.secret, purpose), setCookie: planted.setCookie };
  }

  /** Whether `token` was issued for `purpose` to the browser whose cookies these are. */
  verifyToken(cookies: RequestCookies, token: string | undefined, purpose: string): boolean {
    const secret = this.secret(cookies);
    if (!secret || !token || token.length > 200) return false;
    const [salt, presented, extra] = token.split('.');
    if (extra !== undefined || !salt || !presented) return false;
    const expected = Buffer.from(mac(secret, salt, purpose));
    const actual = Buffer.from(presented);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  /** A new secret, and the Set-Cookie header value that gives it to the browser. */
  private plant(): { secret: string; setCookie: string } {
    const secret = generateOpaqueToken();
    return { secret, setCookie: serializeCookie(this.cookieName, secret, this.cookieOptions) };
  }

  private secret(cookies: RequestCookies): string | null {
    const value = cookies[this.cookieName];
    return isWellFormedCookieToken(value) ? value : null;
  }
}

/** `salt.HMAC(secret, salt|purpose)`; a new salt every time. */
function tokenFor(secret: string, purpose: string): string {
  const salt = randomBytes(12).toString('base64url');
  return `${salt}.${mac(secret, salt, purpose)}`;
}

function mac(secret: string, salt: string, purpose: string): string {
  return createHmac('sha256', secret).update(`${salt}|${purpose}`).digest('base64url');
}

export const CSRF_PURPOSE = {
  login: 'login',
  /**
   * Bound to the session and to the scope the page showed: registered scopes are no ceiling,
   * so an approval must grant exactly what the user read, not a scope edited into the form.
   */
  consent: (sessionId: string, scope = '') => `consent|${sessionId}|${scope}`,
} as const;

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { generateOpaqueToken } from '../crypto/tokens';
import { type CookieOptions, type RequestCookies, serializeCookie } from '../sessions/cookies';
import { isWellFormedCookieToken } from '../sessions/session-cookie';

/** The form field that carries the token. */
export const CSRF_FIELD = '_csrf';

/**
 * How long a consent form can be answered: time to read the page, and a bound on how long its
 * answer has to be remembered as given (ConsumedConsentToken rows live this long, plus the
 * clean-up grace).
 */
export const CONSENT_TOKEN_TTL_SECONDS = 600;

/** A token that checked out: its random id and when it was issued (both under the MAC). */
export interface VerifiedToken {
  id: string;
  issuedAt: Date;
}

/**
 * Synchronizer tokens for the login and consent forms, bound to a cookie.
 *
 * The browser holds a random secret in an HttpOnly cookie; each form carries
 * `id.issuedAt.HMAC(secret, id|issuedAt|purpose)`. A cross-site page can neither read the
 * cookie nor the form, so it cannot produce a matching pair. The purpose binds a token to one
 * form: the consent token also names the login session, so a consent form rendered for one
 * session cannot approve for another (a different user signed in in another tab, or a session
 * planted by login CSRF), and a digest of the authorization request it showed (CSRF_PURPOSE).
 * The id is random on every render, so the token in the page is never the same string twice
 * (BREACH), and it names the form: a consent form answers once (the id is recorded as consumed,
 * authorize/authorize.repository.ts) and only for CONSENT_TOKEN_TTL_SECONDS (the issue time).
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
  issueToken(cookies: RequestCookies, purpose: string, now = new Date()): { token: string; setCookie?: string } {
    const secret = this.secret(cookies);
    if (secret) return { token: tokenFor(secret, purpose, now) };
    const planted = this.plant();
    return { token: tokenFor(planted.secret, purpose, now), setCookie: planted.setCookie };
  }

  /**
   * The token's id and issue time when `token` was issued for `purpose` to the browser whose
   * cookies these are (and, with `maxAgeSeconds`, no longer ago than that); null otherwise.
   */
  verifyToken(
    cookies: RequestCookies,
    token: string | undefined,
    purpose: string,
    { maxAgeSeconds, now = new Date() }: { maxAgeSeconds?: number; now?: Date } = {},
  ): VerifiedToken | null {
    const secret = this.secret(cookies);
    if (!secret || !token || token.length > 200) return null;
    const [id, issuedAt, presented, extra] = token.split('.');
    if (extra !== undefined || !id || !presented || !ISSUED_AT.test(issuedAt ?? '')) return null;
    const expected = Buffer.from(mac(secret, id, issuedAt, purpose));
    const actual = Buffer.from(presented);
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
    const issued = new Date(Number(issuedAt) * 1000);
    if (maxAgeSeconds !== undefined && now.getTime() - issued.getTime() > maxAgeSeconds * 1000) return null;
    return { id, issuedAt: issued };
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

/** Whole seconds since the epoch. */
const ISSUED_AT = /^\d{1,12}$/;

/** `id.issuedAt.HMAC(secret, id|issuedAt|purpose)`; a new random id every time. */
function tokenFor(secret: string, purpose: string, now: Date): string {
  const id = randomBytes(16).toString('base64url');
  const issuedAt = String(Math.floor(now.getTime() / 1000));
  return `${id}.${issuedAt}.${mac(secret, id, issuedAt, purpose)}`;
}

/** id is base64url and issuedAt digits (no "|" in either): the purpose is all that follows them. */
function mac(secret: string, id: string, issuedAt: string, purpose: string): string {
  return createHmac('sha256', secret).update(`${id}|${issuedAt}|${purpose}`).digest('base64url');
}

/** What a consent form asks the user to grant: the authorization request as validated and shown. */
export interface ConsentedRequest {
  client: { id: string };
  /** Exactly as sent: the code goes there. */
  redirectUri: string;
  /** Canonical (formatScopes). */
  scope: string;
  /** The canonical resource the tokens will be bound to. */
  resource: string;
  codeChallenge: string;
  state?: string;
  nonce?: string;
  /** RFC 9449 §10: the DPoP key the code will be bound to. */
  dpopJkt?: string;
}

/**
 * SHA-256 over a JSON array of every value that decides what the approval grants, to whom, or
 * where its code goes: the session (so the user and auth_time), the client, the redirect URI, the
 * scope, the resource, the PKCE challenge and dpop_jkt (who can redeem the code), state (the
 * client's CSRF binding to its own user's session) and nonce (into the ID token). JSON, not a joined string: no
 * value can shift into its neighbour. Left out because they change nothing granted:
 * response_type and code_challenge_method (only `code` and `S256` pass validation), prompt and
 * max_age (they decide whether the user signs in again, which happened before this page).
 */
export function consentDigest(sessionId: string, request: ConsentedRequest): string {
  const fields = [
    sessionId,
    request.client.id,
    request.redirectUri,
    request.scope,
    request.resource,
    request.codeChallenge,
    request.state ?? null,
    request.nonce ?? null,
    request.dpopJkt ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64url');
}

export const CSRF_PURPOSE = {
  login: 'login',
  /**
   * Bound to the session and to the whole request the page showed: registered scopes are no
   * ceiling, and a token must not approve another client, redirect URI or PKCE challenge, so an
   * approval grants exactly what the user read.
   */
  consent: (sessionId: string, request: ConsentedRequest) => `consent|${consentDigest(sessionId, request)}`,
} as const;

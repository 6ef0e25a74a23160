import type { AuthConfig } from '../config/auth-config';
import type { CookieOptions } from './cookies';

/**
 * `__Host-` binds the cookie to this exact origin: the browser accepts it only with Secure,
 * Path=/ and no Domain, so no sibling subdomain can set or overwrite it. The prefix needs
 * https, hence the plain name on an http origin (local development).
 */
export function sessionCookieName(config: Pick<AuthConfig, 'secureCookies'>): string {
  return config.secureCookies ? '__Host-session' : 'session';
}

export function sessionCookieOptions(config: Pick<AuthConfig, 'secureCookies' | 'ttl'>): CookieOptions {
  return {
    path: '/',
    httpOnly: true,
    // Lax: sent on the top-level GET from the client to /oauth/authorize (so a signed-in
    // user goes straight to consent), never on a cross-site POST.
    sameSite: 'Lax',
    secure: config.secureCookies,
    maxAge: config.ttl.session,
  };
}

/** generateOpaqueToken() output: 32 bytes in base64url. Anything else is not looked up. */
export function isWellFormedCookieToken(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}

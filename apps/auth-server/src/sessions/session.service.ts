import { Inject, Injectable } from '@nestjs/common';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { generateOpaqueToken, hashToken } from '../crypto/tokens';
import { clearedCookie, type RequestCookies, serializeCookie } from './cookies';
import { isWellFormedCookieToken, sessionCookieName, sessionCookieOptions } from './session-cookie';
import { SessionsRepository, type StoredSession } from './sessions.repository';

export interface ActiveSession {
  /** The session row's id (not the cookie value, which is never stored). */
  id: string;
  userId: string;
  /** When the user last entered their password: the ID token's auth_time. */
  authTime: Date;
  user: StoredSession['user'];
}

/**
 * Server-side login sessions. The browser holds a 256-bit random value; the table holds its
 * SHA-256, so a leaked table does not let anyone resume a session.
 */
@Injectable()
export class SessionService {
  private readonly cookieName: string;

  constructor(
    private readonly sessions: SessionsRepository,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {
    this.cookieName = sessionCookieName(config);
  }

  /**
   * Starts a session after a successful login. Whatever session this browser had is deleted
   * and a new value issued: a value planted before login (session fixation) never becomes
   * an authenticated one. Returns the Set-Cookie header value that hands the browser its session.
   */
  async start(cookies: RequestCookies, userId: string, now = new Date()): Promise<{ session: ActiveSession; setCookie: string }> {
    const previous = this.cookieValue(cookies);
    const token = generateOpaqueToken();
    const session = await this.sessions.replaceSession(previous ? hashToken(previous) : null, {
      tokenHash: hashToken(token),
      userId,
      authTime: now,
      expiresAt: new Date(now.getTime() + this.config.ttl.session * 1000),
    });
    return { session: toActive(session), setCookie: serializeCookie(this.cookieName, token, sessionCookieOptions(this.config)) };
  }

  /** The unexpired session the cookies name, with its user; null otherwise. */
  async findActiveSession(cookies: RequestCookies, now = new Date()): Promise<ActiveSession | null> {
    const token = this.cookieValue(cookies);
    if (!token) return null;
    const session = await this.sessions.findSessionByTokenHash(hashToken(token));
    if (!session || session.expiresAt <= now) return null;
    return toActive(session);
  }

  /** Ends the session the cookies name; returns the Set-Cookie header value that removes its cookie. */
  async end(cookies: RequestCookies): Promise<string> {
    const token = this.cookieValue(cookies);
    if (token) await this.sessions.deleteSessionByTokenHash(hashToken(token));
    return clearedCookie(this.cookieName, sessionCookieOptions(this.config));
  }

  /** For a periodic job: expired rows are useless but findActive never returns them anyway. */
  purgeExpired(now = new Date()): Promise<number> {
    return this.sessions.deleteExpiredSessions(now);
  }

  private cookieValue(cookies: RequestCookies): string | null {
    const value = cookies[this.cookieName];
    return isWellFormedCookieToken(value) ? value : null;
  }
}

function toActive(session: StoredSession): ActiveSession {
  return { id: session.id, userId: session.userId, authTime: session.authTime, user: session.user };
}

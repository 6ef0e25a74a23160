import type { AuthConfig } from '../config/auth-config';
import { hashToken } from '../crypto/tokens';
import { parseCookies } from './cookies';
import { SessionService } from './session.service';
import type { NewSession, SessionsRepository, StoredSession } from './sessions.repository';

const USER = { id: 'user-1', email: 'dana@academy.test', name: 'Dana', schoolId: 'demo-school', schoolName: 'Demo Academy' };
const config = { secureCookies: true, ttl: { session: 600 } } as AuthConfig;

function setup() {
  const rows = new Map<string, StoredSession>();
  const repository = {
    findSessionByTokenHash: jest.fn(async (hash: string) => rows.get(hash) ?? null),
    replaceSession: jest.fn(async (previous: string | null, session: NewSession) => {
      if (previous) rows.delete(previous);
      const stored = { id: `s${rows.size + 1}`, userId: session.userId, authTime: session.authTime, expiresAt: session.expiresAt, user: USER };
      rows.set(session.tokenHash, stored);
      return stored;
    }),
    deleteSessionByTokenHash: jest.fn(async (hash: string) => void rows.delete(hash)),
  };
  const service = new SessionService(repository as unknown as SessionsRepository, config);
  /** The cookies a browser sends with this Cookie header. */
  const browser = (cookie?: string) => parseCookies(cookie);
  return { rows, repository, service, browser };
}

const valueOf = (setCookie: string) => setCookie.split(';')[0].split('=')[1];

describe('SessionService', () => {
  it('creates a session: __Host- cookie with the TTL, only the hash stored', async () => {
    const { rows, service, browser } = setup();
    const now = new Date('2030-01-01T00:00:00Z');
    const { session, setCookie } = await service.start(browser(), USER.id, now);
    expect(setCookie).toMatch(/^__Host-session=[\w-]{43}; Max-Age=600; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const value = valueOf(setCookie);
    expect([...rows.keys()]).toEqual([hashToken(value)]);
    expect(session).toMatchObject({ userId: USER.id, authTime: now, user: USER });
    expect(rows.get(hashToken(value))?.expiresAt).toEqual(new Date('2030-01-01T00:10:00Z'));
  });

  it('renews: the previous session of the browser is deleted, a new value issued', async () => {
    const { rows, service, browser } = setup();
    const old = valueOf((await service.start(browser(), USER.id)).setCookie);
    const renewed = valueOf((await service.start(browser(`__Host-session=${old}`), USER.id)).setCookie);
    expect(renewed).not.toBe(old);
    expect([...rows.keys()]).toEqual([hashToken(renewed)]);
  });

  it('finds the active session, not an expired one, nor one under the http cookie name', async () => {
    const { service, browser } = setup();
    const now = new Date('2030-01-01T00:00:00Z');
    const value = valueOf((await service.start(browser(), USER.id, now)).setCookie);
    const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
    expect(await service.findActiveSession(browser(`__Host-session=${value}`), later(599))).toMatchObject({ userId: USER.id });
    expect(await service.findActiveSession(browser(`__Host-session=${value}`), later(600))).toBeNull();
    expect(await service.findActiveSession(browser(`session=${value}`), later(1))).toBeNull();
  });

  it('does not query for a malformed cookie', async () => {
    const { service, browser, repository } = setup();
    expect(await service.findActiveSession(browser('__Host-session=../../etc'))).toBeNull();
    expect(repository.findSessionByTokenHash).not.toHaveBeenCalled();
  });

  it('ends the session and clears the cookie', async () => {
    const { rows, service, browser } = setup();
    const value = valueOf((await service.start(browser(), USER.id)).setCookie);
    const cleared = await service.end(browser(`__Host-session=${value}`));
    expect(rows.size).toBe(0);
    expect(cleared).toBe('__Host-session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax');
  });
});

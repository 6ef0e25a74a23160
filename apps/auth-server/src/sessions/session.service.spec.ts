import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthConfig } from '../config/auth-config';
import { hashToken } from '../crypto/tokens';
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
  const exchange = (cookie?: string) => {
    const setCookies: string[] = [];
    const request = { headers: cookie ? { cookie } : {} } as FastifyRequest;
    const reply = { header: (_: string, value: string) => void setCookies.push(value) } as unknown as FastifyReply;
    return { request, reply, setCookies };
  };
  return { rows, repository, service, exchange };
}

const valueOf = (setCookie: string) => setCookie.split(';')[0].split('=')[1];

describe('SessionService', () => {
  it('creates a session: __Host- cookie with the TTL, only the hash stored', async () => {
    const { rows, service, exchange } = setup();
    const now = new Date('2030-01-01T00:00:00Z');
    const { request, reply, setCookies } = exchange();
    const session = await service.create(request, reply, USER.id, now);
    expect(setCookies[0]).toMatch(/^__Host-session=[\w-]{43}; Max-Age=600; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const value = valueOf(setCookies[0]);
    expect([...rows.keys()]).toEqual([hashToken(value)]);
    expect(session).toMatchObject({ userId: USER.id, authTime: now, user: USER });
    expect(rows.get(hashToken(value))?.expiresAt).toEqual(new Date('2030-01-01T00:10:00Z'));
  });

  it('renews: the previous session of the browser is deleted, a new value issued', async () => {
    const { rows, service, exchange } = setup();
    const first = exchange();
    await service.create(first.request, first.reply, USER.id);
    const old = valueOf(first.setCookies[0]);
    const second = exchange(`__Host-session=${old}`);
    await service.create(second.request, second.reply, USER.id);
    const renewed = valueOf(second.setCookies[0]);
    expect(renewed).not.toBe(old);
    expect([...rows.keys()]).toEqual([hashToken(renewed)]);
  });

  it('finds the active session, not an expired one, nor one under the http cookie name', async () => {
    const { service, exchange } = setup();
    const now = new Date('2030-01-01T00:00:00Z');
    const created = exchange();
    await service.create(created.request, created.reply, USER.id, now);
    const value = valueOf(created.setCookies[0]);
    const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
    expect(await service.findActive(exchange(`__Host-session=${value}`).request, later(599))).toMatchObject({ userId: USER.id });
    expect(await service.findActive(exchange(`__Host-session=${value}`).request, later(600))).toBeNull();
    expect(await service.findActive(exchange(`session=${value}`).request, later(1))).toBeNull();
  });

  it('does not query for a malformed cookie', async () => {
    const { service, exchange, repository } = setup();
    expect(await service.findActive(exchange('__Host-session=../../etc').request)).toBeNull();
    expect(repository.findSessionByTokenHash).not.toHaveBeenCalled();
  });

  it('destroys the session and clears the cookie', async () => {
    const { rows, service, exchange } = setup();
    const created = exchange();
    await service.create(created.request, created.reply, USER.id);
    const value = valueOf(created.setCookies[0]);
    const logout = exchange(`__Host-session=${value}`);
    await service.destroy(logout.request, logout.reply);
    expect(rows.size).toBe(0);
    expect(logout.setCookies[0]).toBe('__Host-session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax');
  });
});

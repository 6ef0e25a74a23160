import { newEventId } from '@platform/contracts';
import { PrismaService } from '../database/prisma.service';
import { startTestResourceServer, type TestResourceServer } from '../../test/support/test-resource-server';
import { runEventsCli } from './events-cli';

jest.setTimeout(60_000);

let server: TestResourceServer;

beforeAll(async () => {
  server = await startTestResourceServer();
  const prisma = server.app.get(PrismaService);
  const event = (schoolId: string | null, type: string, occurredAt: string) => ({
    id: newEventId(),
    schoolId,
    type,
    occurredAt: new Date(occurredAt),
    actorType: 'user',
    actorId: 'demo-owner',
    clientId: 'client-7',
    address: '203.0.113.9',
    outcome: 'success',
    data: { scope: 'courses:read' },
  });
  await prisma.auditEvent.createMany({
    data: [
      event('demo-school', 'auth.consent.granted', '2026-11-01T10:00:00Z'),
      event('other-school', 'auth.sign_in.failed', '2026-11-02T10:00:00Z'),
      event(null, 'auth.client.registered', '2026-11-03T10:00:00Z'),
    ],
  });
});

afterAll(() => server?.close());

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runEventsCli(argv, { RESOURCE_DATABASE_URL: server.databaseUrl }, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { status, out, err };
}

describe('npm run events', () => {
  it('lists every school’s security events newest first, one school’s, or the platform-wide ones', async () => {
    const all = await run('list', '--json');
    expect(all.status).toBe(0);
    expect((JSON.parse(all.out.join('\n')) as { type: string }[]).map((event) => event.type)).toEqual([
      'auth.client.registered',
      'auth.sign_in.failed',
      'auth.consent.granted',
    ]);
    const school = await run('list', '--school', 'demo-school');
    expect(school.out).toHaveLength(1);
    expect(school.out[0]).toContain('auth.consent.granted');
    expect(school.out[0]).toContain('from 203.0.113.9');
    expect((await run('list', '--platform', '--json')).out.join('')).toContain('auth.client.registered');
    expect((await run('list', '--since', '2026-11-02T00:00:00Z', '--type', 'auth.sign_in.failed', '--json')).out.join('')).toContain('other-school');
  });

  it('refuses bad options with the usage status', async () => {
    expect((await run('list', '--type', 'nope')).status).toBe(2);
    expect((await run('list', '--since', 'yesterday')).status).toBe(2);
    expect((await run('list', '--limit', '0')).status).toBe(2);
    expect((await run('redeliver')).status).toBe(2);
    expect((await run('frobnicate')).status).toBe(2);
  });

  it('lists deliveries and queues one again', async () => {
    expect((await run('deliveries')).out).toEqual(['no deliveries']);
    const missing = await run('redeliver', 'no-such-delivery');
    expect(missing).toMatchObject({ status: 1, err: ['no delivery no-such-delivery'] });
  });
});

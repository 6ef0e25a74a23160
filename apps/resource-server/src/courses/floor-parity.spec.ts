import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startTestResourceServer, type TestResourceServer } from '../../test/support/test-resource-server';
import { PrismaService } from '../database/prisma.service';
import { toCourseView } from './courses.service';

const FLOOR_SCRIPT = join(__dirname, '../../../../tools/bench/floor-server.mjs');

/** Starts tools/bench/floor-server.mjs as the bench does and waits for its "listening" line. */
async function startFloor(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [FLOOR_SCRIPT], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (!child.stdout) throw new Error('floor-server has no stdout');
  for await (const line of createInterface({ input: child.stdout })) {
    const message = JSON.parse(line) as { event?: string; url?: string };
    if (message.event === 'listening' && message.url) return { url: message.url, child };
  }
  throw new Error('floor-server ended before listening');
}

/**
 * The bench's floor case (a bare Fastify route with the course list's SQL) is only a floor if
 * it does the same work: its body must be the resource server's, byte for byte.
 */
describe('tools/bench/floor-server.mjs', () => {
  let server: TestResourceServer;
  let floor: { url: string; child: ChildProcess };

  beforeAll(async () => {
    server = await startTestResourceServer();
    // A published course whose text needs JSON escaping, with no lecturer: both serializers must agree on it.
    await server.app.get(PrismaService).course.create({
      data: {
        id: 'crs-zz-escaping',
        schoolId: 'demo-school',
        title: 'Quotes " and \\ backslashes, \u2028 line separators, emoji 🎓 and a tab\t',
        slug: 'escaping',
        summary: '<script>alert(1)</script>\n\u0001',
        priceCents: 0,
        currency: 'EUR',
        published: true,
        publishedAt: new Date('2026-02-03T04:05:06.007Z'),
      },
    });
    floor = await startFloor(server.databaseUrl);
  }, 120_000);

  afterAll(async () => {
    if (floor?.child.exitCode === null) {
      const exited = new Promise((resolve) => floor.child.once('exit', resolve));
      floor.child.kill('SIGTERM');
      await exited;
    }
    await server?.close();
  }, 60_000);

  it.each(['/api/v1/courses?limit=5', '/api/v1/courses?limit=2', '/api/v1/courses'])('answers %s with the resource server’s bytes', async (url) => {
    const expected = await server.app.inject({ method: 'GET', url });
    expect(expected.statusCode).toBe(200);
    const actual = await fetch(`${floor.url}${url}`);
    expect(actual.status).toBe(200);
    expect(await actual.text()).toBe(expected.body);
  });

  it('compares a page with a next_cursor too (limit=2)', async () => {
    const first = (await server.app.inject({ method: 'GET', url: '/api/v1/courses?limit=2' })).json() as { next_cursor: string | null };
    expect(first.next_cursor).toEqual(expect.any(String));
  });
});

describe('the course list statement', () => {
  let server: TestResourceServer;

  beforeAll(async () => {
    server = await startTestResourceServer();
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  }, 60_000);

  it('gives what Prisma rows give through toCourseView (dates, nulls, numbers), for anonymous callers and with filters', async () => {
    const prisma = server.app.get(PrismaService);
    const viaPrisma = (await prisma.course.findMany({ where: { schoolId: 'demo-school', published: true }, orderBy: { id: 'asc' } })).map(toCourseView);
    const listed = (await server.app.inject({ method: 'GET', url: '/api/v1/courses?limit=100' })).json() as { data: unknown[] };
    expect(listed.data).toEqual(viaPrisma);
    expect(JSON.stringify(listed.data)).toBe(JSON.stringify(viaPrisma));
    expect(viaPrisma.some((course) => course.lecturer_id === null || course.published_at !== null)).toBe(true);
  });
});

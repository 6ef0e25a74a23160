import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startTestResourceServer, type TestResourceServer } from './support/test-resource-server';

/** Anonymous callers over HTTP (no token: the guard lets @AllowAnonymous routes through). */
describe('the public view (anonymous callers)', () => {
  let server: TestResourceServer;
  let app: NestFastifyApplication;

  const getJson = async (url: string) => {
    const response = await app.inject({ method: 'GET', url });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> & { data?: Record<string, unknown>[] } };
  };
  const ids = async (url: string) => {
    const { status, body } = await getJson(url);
    expect(status).toBe(200);
    return (body.data ?? []).map((item) => item['id']);
  };

  beforeAll(async () => {
    server = await startTestResourceServer();
    app = server.app;
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('sees the published courses of the default school, never the drafts', async () => {
    const courses = await ids('/api/v1/courses');
    expect(courses).toEqual([
      'crs-nestjs-in-practice',
      'crs-postgresql-for-developers',
      'crs-typescript-fundamentals',
      'crs-web-security-essentials',
    ]);
    expect((await getJson('/api/v1/courses/crs-advanced-typescript-patterns')).status).toBe(404);
    expect(await ids('/api/v1/courses?published=false')).toEqual([]);
  });

  it('picks another school with ?school=', async () => {
    expect(await ids('/api/v1/courses?school=other-school')).toEqual(['crs-nw-data-analysis']);
    expect((await getJson('/api/v1/school?school=other-school')).body).toMatchObject({ id: 'other-school', name: 'Northwind Institute' });
    expect((await getJson('/api/v1/courses/crs-typescript-fundamentals?school=other-school')).status).toBe(404);
  });

  it('gets 404 for a school that does not exist', async () => {
    expect(await getJson('/api/v1/courses?school=no-such-school')).toEqual({
      status: 404,
      body: { error: 'not_found', error_description: 'No such school' },
    });
  });

  it('sees the curriculum outline of published courses: titles, no lesson content', async () => {
    const outline = await getJson('/api/v1/courses/crs-typescript-fundamentals/curriculum');
    expect(outline.status).toBe(200);
    expect(outline.body).toMatchObject({ course_id: 'crs-typescript-fundamentals', section_count: 3, lesson_count: 9 });
    expect(JSON.stringify(outline.body)).not.toContain('content');
    const lesson = await getJson('/api/v1/courses/crs-typescript-fundamentals/lessons/les-typescript-fundamentals-1-1');
    expect(lesson.body).toMatchObject({ title: 'Why TypeScript' });
    expect(lesson.body).not.toHaveProperty('content');
    const lessons = await getJson('/api/v1/courses/crs-typescript-fundamentals/sections/sec-typescript-fundamentals-2/lessons');
    expect(lessons.body.data?.map((item) => item['position'])).toEqual([0, 1, 2]);
    expect(lessons.body.data?.some((item) => 'content' in item)).toBe(false);
    expect((await getJson('/api/v1/courses/crs-advanced-typescript-patterns/curriculum')).status).toBe(404);
    expect((await getJson('/api/v1/courses/crs-advanced-typescript-patterns/sections')).status).toBe(404);
  });

  it('sees lecturers, published posts and pages, public events, active plans and published products', async () => {
    expect(await ids('/api/v1/lecturers')).toEqual(['lec-amara-okafor', 'lec-jonas-weber', 'lec-maya-chen']);
    expect(await ids('/api/v1/posts')).toEqual(['pst-01-welcome', 'pst-02-typescript-tips', 'pst-03-new-security-course']);
    expect(await ids('/api/v1/pages')).toEqual(['pag-about', 'pag-faq', 'pag-terms']);
    expect(await ids('/api/v1/events')).toEqual(['evt-01-typescript-qa', 'evt-02-security-workshop', 'evt-04-launch-party']);
    expect(await ids('/api/v1/events?upcoming=true')).toEqual(['evt-01-typescript-qa', 'evt-02-security-workshop']);
    expect(await ids('/api/v1/membership-plans')).toEqual(['pln-monthly-all-access', 'pln-yearly-all-access']);
    expect(await ids('/api/v1/digital-products')).toEqual(['dpr-nestjs-starter', 'dpr-typescript-cheat-sheet']);
    const product = await getJson('/api/v1/digital-products/dpr-nestjs-starter');
    expect(product.body).not.toHaveProperty('file_id');
    for (const hidden of ['/api/v1/posts/pst-04-roadmap', '/api/v1/pages/pag-new-landing', '/api/v1/events/evt-03-team-planning', '/api/v1/membership-plans/pln-legacy-basic', '/api/v1/digital-products/dpr-interview-audio-pack']) {
      expect([hidden, (await getJson(hidden)).status]).toEqual([hidden, 404]);
    }
  });

  it('finds a published post or page by slug', async () => {
    expect(await ids('/api/v1/posts?slug=five-typescript-tips')).toEqual(['pst-02-typescript-tips']);
    expect(await ids('/api/v1/pages?slug=new-landing')).toEqual([]);
  });

  it('sees the visible comments of published posts only', async () => {
    expect(await ids('/api/v1/posts/pst-02-typescript-tips/comments')).toEqual(['cmt-003']);
    expect((await getJson('/api/v1/posts/pst-04-roadmap/comments')).status).toBe(404);
  });

  it('sees the school’s public profile without its settings, and its theme', async () => {
    const school = await getJson('/api/v1/school');
    expect(school.body).toMatchObject({ id: 'demo-school', name: 'Demo Academy', timezone: 'America/New_York', currency: 'USD' });
    expect(school.body).not.toHaveProperty('settings');
    expect((await getJson('/api/v1/appearance')).body).toMatchObject({ primary_color: '#4f46e5', font_family: 'Inter' });
  });

  it.each([
    '/api/v1/students',
    '/api/v1/members',
    '/api/v1/orders',
    '/api/v1/coupons',
    '/api/v1/subscriptions',
    '/api/v1/forms',
    '/api/v1/comments',
  ])('gets an empty list, not a challenge, at the private %s', async (url) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: [], next_cursor: null });
  });

  it.each(['/api/v1/account', '/api/v1/analytics/revenue', '/api/v1/students/stu-0001', '/api/v1/orders/ord-0001'])(
    'gets 404 for the private item %s',
    async (url) => {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ error: 'not_found' });
    },
  );

  it('cannot write, even where it may read', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/v1/courses', payload: { title: 'Free course', price_cents: 0 } });
    expect(response.statusCode).toBe(401);
  });
});

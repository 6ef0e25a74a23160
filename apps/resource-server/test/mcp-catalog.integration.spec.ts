import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { PrismaService } from '../src/database/prisma.service';
import {
  publicCourse,
  publicDigitalProduct,
  publicEvent,
  publicLecturer,
  publicMembershipPlan,
  publicSchoolProfile,
} from '../src/mcp/catalog-schemas';
import { startTestResourceServer, type TestResourceServer } from './support/test-resource-server';

const SCHOOL = 'catalog-school';
const BIG = 'big-school';
const HOUR = 3_600_000;

type Item = Record<string, unknown> & { id: string };
type ItemPage = { data: Item[]; next_cursor: string | null };

/**
 * The public MCP tools and the REST routes they stand for, on one real database: for the same
 * query they answer the same items (the tool with the fields its output schema names), and
 * neither shows a draft, a private event, a retired plan or another school's rows.
 */
describe('the MCP catalog tools answer what the REST API answers anonymous callers', () => {
  let server: TestResourceServer;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    server = await startTestResourceServer();
    app = server.app;
    await seed(app.get(PrismaService));
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  const rest = async (path: string) => {
    const response = await app.inject({ method: 'GET', url: `/api/v1${path}` });
    return { status: response.statusCode, body: response.json() };
  };
  const restPage = async (path: string): Promise<ItemPage> => {
    const { status, body } = await rest(path);
    expect(status).toBe(200);
    return body as ItemPage;
  };
  const tool = async (name: string, args: Record<string, unknown> = {}) => {
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });
    expect(response.statusCode).toBe(200);
    return (response.json() as { result: { structuredContent?: unknown; isError?: boolean; content: { text: string }[] } }).result;
  };
  const toolPage = async (name: string, args: Record<string, unknown> = {}): Promise<ItemPage> => {
    const result = await tool(name, args);
    expect(result.isError).toBeFalsy();
    return result.structuredContent as ItemPage;
  };
  const ids = (page: ItemPage) => page.data.map((item) => item.id);

  it.each([
    ['list_courses', '/courses', publicCourse],
    ['list_lecturers', '/lecturers', publicLecturer],
    ['list_membership_plans', '/membership-plans', publicMembershipPlan],
    ['list_digital_products', '/digital-products', publicDigitalProduct],
  ] as const)('%s: the items of GET %s, page by page with the same cursors, each the REST item’s fields', async (name, path, schema) => {
    for (const school of [SCHOOL, 'demo-school', 'other-school']) {
      let cursor: string | undefined;
      let pages = 0;
      do {
        const query = `?school=${school}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const [fromRest, fromTool] = await Promise.all([restPage(`${path}${query}`), toolPage(name, { school, limit: 2, cursor })]);
        expect(fromTool).toEqual({ data: fromRest.data.map((item) => schema.parse(item)), next_cursor: fromRest.next_cursor });
        cursor = fromRest.next_cursor ?? undefined;
        pages += 1;
      } while (cursor !== undefined);
      expect(pages).toBeGreaterThan(0);
    }
  });

  it('the public view is the same filter on both: published courses, active plans, published products without the file', async () => {
    expect(ids(await toolPage('list_courses', { school: SCHOOL }))).toEqual(['course-a', 'course-b', 'course-c']);
    expect(ids(await toolPage('list_membership_plans', { school: SCHOOL }))).toEqual(['plan-active']);
    const products = await toolPage('list_digital_products', { school: SCHOOL });
    expect(ids(products)).toEqual(['product-published']);
    expect(JSON.stringify(products)).not.toContain('file-secret');
    expect(JSON.stringify(await restPage(`/digital-products?school=${SCHOOL}`))).not.toContain('file-secret');
  });

  it('list_events: the events of GET /events?upcoming=true (public, not started), soonest first, paged on (starts_at, id)', async () => {
    const fromRest = await restPage(`/events?school=${SCHOOL}&upcoming=true&limit=100`);
    const soonestFirst = [...fromRest.data].sort((a, b) => Date.parse(String(a['starts_at'])) - Date.parse(String(b['starts_at'])) || a.id.localeCompare(b.id));
    expect(soonestFirst.map((event) => event.id)).toEqual(['event-soon', 'event-later', 'event-later-2']);
    const first = await toolPage('list_events', { school: SCHOOL, limit: 2 });
    const second = await toolPage('list_events', { school: SCHOOL, limit: 2, cursor: first.next_cursor });
    expect([...first.data, ...second.data]).toEqual(soonestFirst.map((event) => publicEvent.parse(event)));
    expect(second.next_cursor).toBeNull();
  });

  it('search_courses: the courses of GET /courses whose title, summary or description contains the text, case-insensitively', async () => {
    const all = (await restPage(`/courses?school=${SCHOOL}&limit=100`)).data;
    const matching = (text: string) =>
      all.filter((course) => ['title', 'summary', 'description'].some((field) => String(course[field]).toLowerCase().includes(text.toLowerCase())));
    for (const text of ['sql', 'WATERCOLOR', 'joins', 'secret', '%', 'Intro_to', 'o to s', '\\']) {
      const found = await toolPage('search_courses', { school: SCHOOL, query: text });
      expect(found).toEqual({ data: matching(text).map((course) => publicCourse.parse(course)), next_cursor: null });
    }
    expect(ids(await toolPage('search_courses', { school: SCHOOL, query: 'sql' }))).toEqual(['course-a']);
  });

  it('search_courses pages through a catalog longer than a REST page, with cursors the REST list issued', async () => {
    const all: Item[] = [];
    let cursor: string | undefined;
    do {
      const page = await restPage(`/courses?school=${BIG}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    const expected = all.filter((course) => String(course['title']).includes('Needle')).map((course) => course.id);
    expect(expected.length).toBeGreaterThan(20);

    const found: string[] = [];
    let from: string | undefined;
    do {
      const page = await toolPage('search_courses', { school: BIG, query: 'needle', limit: 7, cursor: from });
      found.push(...ids(page));
      from = page.next_cursor ?? undefined;
    } while (from !== undefined);
    expect(found).toEqual(expected);
  });

  it('get_course: GET /courses/{id}, its lecturer and GET /courses/{id}/curriculum, without lesson content', async () => {
    const course = (await rest(`/courses/course-a?school=${SCHOOL}`)).body as Item;
    const lecturer = (await rest(`/lecturers/lecturer-1?school=${SCHOOL}`)).body as Item;
    const curriculum = (await rest(`/courses/course-a/curriculum?school=${SCHOOL}`)).body as { sections: { id: string; title: string; lessons: Item[] }[] };
    const result = await tool('get_course', { school: SCHOOL, course_id: 'course-a' });
    expect(result.structuredContent).toEqual({
      ...publicCourse.parse(course),
      description: course['description'],
      lecturer: { id: lecturer.id, name: lecturer['name'], headline: lecturer['headline'] },
      outline: curriculum.sections.map((section) => ({
        id: section.id,
        title: section.title,
        lessons: section.lessons.map(({ id, title, kind, duration_minutes }) => ({ id, title, kind, duration_minutes })),
      })),
    });
    expect(result.structuredContent).toMatchObject({ outline: [{ id: 'section-1', lessons: [{ id: 'lesson-1' }, { id: 'lesson-2' }] }, { id: 'section-2' }] });
    expect(JSON.stringify(result)).not.toContain('SECRET CONTENT');
  });

  it.each(['course-draft', 'other-course'])('get_course %s: 404 on REST, a tool error on MCP', async (courseId) => {
    expect((await rest(`/courses/${courseId}?school=${SCHOOL}`)).status).toBe(404);
    expect(await tool('get_course', { school: SCHOOL, course_id: courseId })).toMatchObject({
      isError: true,
      content: [{ text: `No published course with the id "${courseId}" in the school "${SCHOOL}"` }],
    });
  });

  it('get_school_profile: GET /school without its settings', async () => {
    const school = (await rest(`/school?school=${SCHOOL}`)).body as Item;
    expect(school).not.toHaveProperty('settings');
    expect((await tool('get_school_profile', { school: SCHOOL })).structuredContent).toEqual(publicSchoolProfile.parse(school));
  });

  it.each(['list_courses', 'search_courses', 'list_events', 'get_school_profile'])('%s of an unknown school: a tool error naming it (REST: 404)', async (name) => {
    expect((await rest('/courses?school=nowhere')).status).toBe(404);
    expect(await tool(name, { school: 'nowhere', ...(name === 'search_courses' ? { query: 'x' } : {}) })).toMatchObject({
      isError: true,
      content: [{ text: 'No school with the id "nowhere"' }],
    });
  });

  it('a cursor the list did not issue: the REST explanation, as a tool error', async () => {
    expect(await tool('list_courses', { school: SCHOOL, cursor: 'forged' })).toMatchObject({
      isError: true,
      content: [{ text: 'cursor: not a cursor this list issued' }],
    });
  });
});

async function seed(prisma: PrismaService): Promise<void> {
  const now = Date.now();
  await prisma.school.create({
    data: {
      id: SCHOOL,
      name: 'Catalog Academy',
      slug: 'catalog-academy',
      description: 'Learn things',
      websiteUrl: 'https://academy.example.com',
      contactEmail: 'hello@academy.example.com',
      settings: { secret: 'staff only' },
    },
  });
  await prisma.school.create({ data: { id: BIG, name: 'Big', slug: 'big' } });
  await prisma.lecturer.create({ data: { id: 'lecturer-1', schoolId: SCHOOL, name: 'Ada Lovelace', headline: 'Analyst' } });
  const course = (id: string, title: string, published: boolean, extra: Record<string, string> = {}) => ({
    id,
    schoolId: SCHOOL,
    title,
    slug: id,
    priceCents: 4900,
    currency: 'USD',
    published,
    publishedAt: published ? new Date('2030-01-01T00:00:00.000Z') : null,
    ...extra,
  });
  await prisma.course.createMany({
    data: [
      course('course-a', 'Intro to SQL', true, { slug: 'intro-to-sql', summary: 'Queries from scratch', description: 'Learn SELECT', lecturerId: 'lecturer-1' }),
      course('course-b', 'Painting', true, { summary: 'Watercolor basics' }),
      course('course-c', 'Databases II', true, { description: 'Joins and indexes' }),
      course('course-draft', 'Secret SQL draft', false),
    ],
  });
  await prisma.course.create({
    data: { id: 'other-course', schoolId: 'other-school', title: 'Other SQL', slug: 'other-sql-course', priceCents: 0, currency: 'USD', published: true },
  });
  await prisma.course.createMany({
    data: Array.from({ length: 230 }, (_, index) => ({
      id: `big-${String(index).padStart(3, '0')}`,
      schoolId: BIG,
      title: index % 7 === 3 ? `Needle ${index}` : `Hay ${index}`,
      slug: `big-${index}`,
      priceCents: 100,
      currency: 'USD',
      // A draft needle: never found.
      published: index !== 10,
    })),
  });
  await prisma.section.createMany({
    data: [
      { id: 'section-2', schoolId: SCHOOL, courseId: 'course-a', title: 'Next steps', position: 1 },
      { id: 'section-1', schoolId: SCHOOL, courseId: 'course-a', title: 'Basics', position: 0 },
    ],
  });
  await prisma.lesson.createMany({
    data: [
      { id: 'lesson-2', schoolId: SCHOOL, courseId: 'course-a', sectionId: 'section-1', title: 'SELECT', kind: 'text', position: 1, content: 'SECRET CONTENT' },
      { id: 'lesson-1', schoolId: SCHOOL, courseId: 'course-a', sectionId: 'section-1', title: 'Tables', kind: 'video', position: 0, durationMinutes: 7 },
    ],
  });
  const event = (id: string, hoursFromNow: number, endsAfterHours: number | null, isPublic = true) => ({
    id,
    schoolId: SCHOOL,
    title: id,
    startsAt: new Date(now + hoursFromNow * HOUR),
    endsAt: endsAfterHours === null ? null : new Date(now + (hoursFromNow + endsAfterHours) * HOUR),
    isPublic,
  });
  await prisma.event.createMany({
    data: [
      event('event-later-2', 48, null),
      event('event-later', 48, null),
      event('event-soon', 2, 1),
      event('event-ongoing', -1, 2),
      event('event-past', -5, 1),
      event('event-private', 5, null, false),
    ],
  });
  await prisma.membershipPlan.createMany({
    data: [
      { id: 'plan-active', schoolId: SCHOOL, name: 'All access', priceCents: 1900, currency: 'USD', interval: 'month', features: ['Every course'] },
      { id: 'plan-retired', schoolId: SCHOOL, name: 'Old', priceCents: 900, currency: 'USD', interval: 'month', active: false },
    ],
  });
  await prisma.digitalProduct.createMany({
    data: [
      { id: 'product-published', schoolId: SCHOOL, title: 'Cheat sheet', priceCents: 500, currency: 'USD', published: true, fileId: 'file-secret' },
      { id: 'product-draft', schoolId: SCHOOL, title: 'Draft', priceCents: 500, currency: 'USD', published: false },
    ],
  });
}

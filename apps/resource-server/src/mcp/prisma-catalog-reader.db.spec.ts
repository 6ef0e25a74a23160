import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import type { ResourceConfig } from '../config/resource-config';
import { PrismaService } from '../database/prisma.service';
import type { CatalogPage } from './catalog-reader';
import { PrismaCatalogReader } from './prisma-catalog-reader';

const SCHOOL = 'catalog-school';
const OTHER = 'other-school';
const NOW = new Date('2030-06-01T12:00:00.000Z');
const hoursFromNow = (hours: number) => new Date(NOW.getTime() + hours * 3_600_000);

describe('PrismaCatalogReader (the public view, on PostgreSQL)', () => {
  let database: TestDatabase;
  let prisma: PrismaService;
  let reader: PrismaCatalogReader;

  beforeAll(async () => {
    database = await createTestDatabase('resource');
    prisma = new PrismaService({ database: { url: database.url, poolSize: database.poolSize } } as ResourceConfig);
    reader = new PrismaCatalogReader(prisma);
    await seed(prisma);
  }, 60_000);

  afterAll(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  const ids = <T extends { id: string }>(page: CatalogPage<T> | null) => page?.data.map((item) => item.id);

  it('lists published courses only, of the school only', async () => {
    expect(ids(await reader.listCourses(SCHOOL, { limit: 10 }))).toEqual(['course-a', 'course-b', 'course-c']);
    expect(ids(await reader.listCourses(OTHER, { limit: 10 }))).toEqual(['other-course']);
  });

  it('pages with the API’s cursors', async () => {
    const first = await reader.listCourses(SCHOOL, { limit: 2 });
    expect(ids(first)).toEqual(['course-a', 'course-b']);
    expect(first?.next_cursor).toEqual(expect.any(String));
    const second = await reader.listCourses(SCHOOL, { limit: 2, cursor: first?.next_cursor ?? undefined });
    expect(second).toEqual({ data: [expect.objectContaining({ id: 'course-c' })], next_cursor: null });
  });

  it('answers null for an unknown school, an empty page for a school without items', async () => {
    expect(await reader.listCourses('nowhere', { limit: 10 })).toBeNull();
    expect(await reader.listDigitalProducts(OTHER, { limit: 10 })).toEqual({ data: [], next_cursor: null });
  });

  it('searches title, summary and description, case-insensitively, published only', async () => {
    expect(ids(await reader.searchCourses(SCHOOL, 'sql', { limit: 10 }))).toEqual(['course-a']);
    expect(ids(await reader.searchCourses(SCHOOL, 'WATERCOLOR', { limit: 10 }))).toEqual(['course-b']);
    expect(ids(await reader.searchCourses(SCHOOL, 'joins', { limit: 10 }))).toEqual(['course-c']);
    expect(ids(await reader.searchCourses(SCHOOL, 'secret', { limit: 10 }))).toEqual([]);
    // LIKE wildcards are plain characters
    expect(ids(await reader.searchCourses(SCHOOL, '%', { limit: 10 }))).toEqual([]);
    expect(ids(await reader.searchCourses(SCHOOL, 'Intro_to', { limit: 10 }))).toEqual([]);
    expect(ids(await reader.searchCourses(SCHOOL, 'o to s', { limit: 10 }))).toEqual(['course-a']);
    expect(ids(await reader.searchCourses(SCHOOL, '\\', { limit: 10 }))).toEqual([]);
  });

  it('gets a published course with its lecturer and outline, without lesson content', async () => {
    const course = await reader.getCourse(SCHOOL, 'course-a');
    expect(course).toEqual({
      id: 'course-a',
      title: 'Intro to SQL',
      slug: 'intro-to-sql',
      summary: 'Queries from scratch',
      level: 'beginner',
      price_cents: 4900,
      currency: 'USD',
      lecturer_id: 'lecturer-1',
      published_at: '2030-01-01T00:00:00.000Z',
      description: 'Learn SELECT',
      lecturer: { id: 'lecturer-1', name: 'Ada Lovelace', headline: 'Analyst' },
      outline: [
        {
          id: 'section-1',
          title: 'Basics',
          lessons: [
            { id: 'lesson-1', title: 'Tables', kind: 'video', duration_minutes: 7 },
            { id: 'lesson-2', title: 'SELECT', kind: 'text', duration_minutes: null },
          ],
        },
        { id: 'section-2', title: 'Next steps', lessons: [] },
      ],
    });
    expect(JSON.stringify(course)).not.toContain('SECRET CONTENT');
  });

  it('does not get a draft course, or another school’s course', async () => {
    expect(await reader.getCourse(SCHOOL, 'course-draft')).toBeNull();
    expect(await reader.getCourse(SCHOOL, 'other-course')).toBeNull();
  });

  it('lists lecturers', async () => {
    expect(ids(await reader.listLecturers(SCHOOL, { limit: 10 }))).toEqual(['lecturer-1']);
  });

  it('lists public events that have not started, soonest first, paging on (starts_at, id)', async () => {
    expect(ids(await reader.listEvents(SCHOOL, { limit: 10 }, NOW))).toEqual(['event-soon', 'event-later', 'event-later-2']);
    const first = await reader.listEvents(SCHOOL, { limit: 2 }, NOW);
    const second = await reader.listEvents(SCHOOL, { limit: 2, cursor: first?.next_cursor ?? undefined }, NOW);
    expect(ids(second)).toEqual(['event-later-2']);
    expect(second?.next_cursor).toBeNull();
  });

  it('lists active membership plans and published digital products, without the deliverable', async () => {
    expect(ids(await reader.listMembershipPlans(SCHOOL, { limit: 10 }))).toEqual(['plan-active']);
    const products = await reader.listDigitalProducts(SCHOOL, { limit: 10 });
    expect(ids(products)).toEqual(['product-published']);
    expect(products?.data[0]).not.toHaveProperty('file_id');
  });

  it('gets the public school profile, without its settings', async () => {
    const profile = await reader.getSchoolProfile(SCHOOL);
    expect(profile).toEqual({
      id: SCHOOL,
      name: 'Catalog Academy',
      slug: 'catalog-academy',
      description: 'Learn things',
      website_url: 'https://academy.example.com',
      contact_email: 'hello@academy.example.com',
      currency: 'USD',
      locale: 'en',
      timezone: 'UTC',
    });
    expect(await reader.getSchoolProfile('nowhere')).toBeNull();
  });
});

async function seed(prisma: PrismaService): Promise<void> {
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
  await prisma.school.create({ data: { id: OTHER, name: 'Other', slug: 'other' } });
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
    data: { id: 'other-course', schoolId: OTHER, title: 'Other SQL', slug: 'other', priceCents: 0, currency: 'USD', published: true },
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
  const event = (id: string, startsAt: Date, endsAt: Date | null, isPublic = true) => ({
    id,
    schoolId: SCHOOL,
    title: id,
    startsAt,
    endsAt,
    isPublic,
  });
  await prisma.event.createMany({
    data: [
      event('event-later-2', hoursFromNow(48), null),
      event('event-later', hoursFromNow(48), null),
      event('event-soon', hoursFromNow(2), hoursFromNow(3)),
      event('event-ongoing', hoursFromNow(-1), hoursFromNow(1)),
      event('event-past', hoursFromNow(-5), hoursFromNow(-4)),
      event('event-past-no-end', hoursFromNow(-5), null),
      event('event-private', hoursFromNow(5), null, false),
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

import { OAuthError } from '@platform/oauth-errors';
import { AppearanceService } from '../src/appearance/appearance.service';
import type { Page } from '../src/common/pagination';
import { CreateCoupon } from '../src/coupons/coupons.dto';
import { CouponsService } from '../src/coupons/coupons.service';
import { CoursesService } from '../src/courses/courses.service';
import { CurriculumService } from '../src/curriculum/curriculum.service';
import { MembersService } from '../src/members/members.service';
import { SchoolService } from '../src/school/school.service';
import { CreateStudent } from '../src/students/students.dto';
import { StudentsService } from '../src/students/students.service';
import { SubscriptionsService } from '../src/subscriptions/subscriptions.service';
import { DemoDataSeeder } from '../src/seed/demo-data.seeder';
import { PrismaService } from '../src/database/prisma.service';
import { ANONYMOUS, DEMO_OWNER } from './support/principals';
import { startTestResourceServer, type TestResourceServer } from './support/test-resource-server';

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OAuthError) return `${error.status} ${error.error}: ${error.description}`;
    throw error;
  }
  throw new Error('expected a refusal');
}

async function walk<T extends { id: string }>(fetch: (cursor?: string) => Promise<Page<T>>, between?: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await fetch(cursor);
    seen.push(...page.data.map((item) => item.id));
    if (page.next_cursor === null) return seen;
    cursor = page.next_cursor;
    if (pages === 0 && between) await between();
  }
  throw new Error('the cursor never ended');
}

describe('pagination', () => {
  let server: TestResourceServer;
  const get = <T>(type: new (...args: never[]) => T): T => server.app.get(type);

  beforeAll(async () => {
    server = await startTestResourceServer();
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('walks a list page by page in id order, each item once', async () => {
    const students = get(StudentsService);
    const all = (await students.list(DEMO_OWNER, { limit: 100 })).data.map((student) => student.id);
    expect(all).toHaveLength(24);
    expect([...all].sort()).toEqual(all);
    expect(await walk((cursor) => students.list(DEMO_OWNER, { limit: 5, cursor }))).toEqual(all);
  });

  it('stays stable when items are added between pages', async () => {
    const students = get(StudentsService);
    const before = (await students.list(DEMO_OWNER, { limit: 100 })).data.map((student) => student.id);
    let added = '';
    const walked = await walk(
      (cursor) => students.list(DEMO_OWNER, { limit: 7, cursor }),
      async () => {
        added = (await students.create(DEMO_OWNER, { name: 'Late Comer', email: 'late.comer@students.test' })).id;
      },
    );
    expect(walked.filter((id) => id !== added)).toEqual(before);
    expect(new Set(walked).size).toBe(walked.length);
  });

  it('keeps sections and lessons in their position order across pages', async () => {
    const curriculum = get(CurriculumService);
    const sections = await walk((cursor) => curriculum.listSections(ANONYMOUS, 'crs-nestjs-in-practice', { limit: 1, cursor }));
    expect(sections).toEqual(['sec-nestjs-in-practice-1', 'sec-nestjs-in-practice-2', 'sec-nestjs-in-practice-3']);
    const lessons = await walk((cursor) => curriculum.listLessons(ANONYMOUS, 'crs-nestjs-in-practice', 'sec-nestjs-in-practice-2', { limit: 2, cursor }));
    expect(lessons).toEqual(['les-nestjs-in-practice-2-1', 'les-nestjs-in-practice-2-2', 'les-nestjs-in-practice-2-3']);
  });

  it('filters within the page walk', async () => {
    const courseStudents = await walk((cursor) =>
      get(StudentsService).list(DEMO_OWNER, { limit: 3, cursor, course_id: 'crs-web-security-essentials' }),
    );
    const prisma = get(PrismaService);
    const enrolled = await prisma.enrollment.findMany({
      where: { schoolId: 'demo-school', courseId: 'crs-web-security-essentials' },
      select: { studentId: true },
      orderBy: { studentId: 'asc' },
    });
    expect(courseStudents).toEqual(enrolled.map((row) => row.studentId));
  });
});

describe('writes', () => {
  let server: TestResourceServer;
  const get = <T>(type: new (...args: never[]) => T): T => server.app.get(type);

  beforeAll(async () => {
    server = await startTestResourceServer();
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('creates a course with a slug from its title and the school’s currency, then publishes it', async () => {
    const courses = get(CoursesService);
    const created = await courses.create(DEMO_OWNER, { title: 'Rust for TypeScript Developers', price_cents: 5900, lecturer_id: 'lec-maya-chen' });
    expect(created).toMatchObject({ slug: 'rust-for-typescript-developers', currency: 'USD', published: false, published_at: null });
    await expect(courses.get(ANONYMOUS, created.id, {})).rejects.toMatchObject({ status: 404 });

    const published = await courses.update(DEMO_OWNER, created.id, { published: true });
    expect(published.published_at).not.toBeNull();
    const savedAgain = await courses.update(DEMO_OWNER, created.id, { published: true, summary: 'Ownership without tears' });
    expect(savedAgain.published_at).toBe(published.published_at);
    expect((await courses.get(ANONYMOUS, created.id, {})).title).toBe('Rust for TypeScript Developers');

    expect(await refusal(courses.create(DEMO_OWNER, { title: 'Rust for TypeScript Developers', price_cents: 1 }))).toMatch(/^409 conflict/);
    await courses.remove(DEMO_OWNER, created.id);
    expect(await refusal(courses.get(DEMO_OWNER, created.id, {}))).toMatch(/^404/);
  });

  it('builds a curriculum: positions follow, a lesson moves only within its course', async () => {
    const curriculum = get(CurriculumService);
    const section = await curriculum.createSection(DEMO_OWNER, 'crs-postgresql-for-developers', { title: 'Replication' });
    expect(section.position).toBe(3);
    const lesson = await curriculum.createLesson(DEMO_OWNER, 'crs-postgresql-for-developers', section.id, { title: 'Streaming replication', kind: 'video' });
    expect(lesson).toMatchObject({ position: 0, content: '' });
    expect(
      await refusal(curriculum.updateLesson(DEMO_OWNER, 'crs-postgresql-for-developers', lesson.id, { section_id: 'sec-typescript-fundamentals-1' })),
    ).toMatch(/^400 invalid_request: section_id: /);
    const moved = await curriculum.updateLesson(DEMO_OWNER, 'crs-postgresql-for-developers', lesson.id, { section_id: 'sec-postgresql-for-developers-1' });
    expect(moved.section_id).toBe('sec-postgresql-for-developers-1');
    await curriculum.removeSection(DEMO_OWNER, 'crs-postgresql-for-developers', section.id);
  });

  it('never leaves a school without an owner', async () => {
    const members = get(MembersService);
    expect(await refusal(members.update(DEMO_OWNER, 'mem-01-owner', { role: 'admin' }))).toMatch(/^409 conflict/);
    expect(await refusal(members.remove(DEMO_OWNER, 'mem-01-owner'))).toMatch(/^409 conflict/);
    await members.update(DEMO_OWNER, 'mem-02-admin', { role: 'owner' });
    expect((await members.update(DEMO_OWNER, 'mem-01-owner', { role: 'admin' })).role).toBe('admin');
    await members.update(DEMO_OWNER, 'mem-01-owner', { role: 'owner' });
    await members.update(DEMO_OWNER, 'mem-02-admin', { role: 'admin' });
  });

  it('keeps a coupon’s terms consistent across a change', async () => {
    const coupons = get(CouponsService);
    expect(await refusal(coupons.update(DEMO_OWNER, 'cpn-welcome10', { amount_off_cents: 500, currency: 'USD' }))).toMatch(/percent_off/);
    const switched = await coupons.update(DEMO_OWNER, 'cpn-welcome10', { percent_off: null, amount_off_cents: 500, currency: 'USD' });
    expect(switched).toMatchObject({ percent_off: null, amount_off_cents: 500 });
    expect(await refusal(coupons.create(DEMO_OWNER, CreateCoupon.parse({ code: 'welcome10', percent_off: 5 })))).toMatch(/^409 conflict/);
  });

  it('cancels a subscription once, for good', async () => {
    const subscriptions = get(SubscriptionsService);
    const created = await subscriptions.create(DEMO_OWNER, { plan_id: 'pln-yearly-all-access', student_id: 'stu-024', started_at: new Date('2026-01-31T12:00:00Z') });
    expect(created).toMatchObject({ status: 'active', current_period_end: '2027-01-31T12:00:00.000Z' });
    const canceled = await subscriptions.update(DEMO_OWNER, created.id, { status: 'canceled' });
    expect(canceled.canceled_at).not.toBeNull();
    expect(await refusal(subscriptions.update(DEMO_OWNER, created.id, { status: 'active' }))).toMatch(/^409 conflict/);
    expect(await refusal(subscriptions.create(DEMO_OWNER, { plan_id: 'pln-legacy-basic', student_id: 'stu-024' }))).toMatch(/plan_id: /);
  });

  it('completes an enrollment at 100 % and refuses a second one for the same course', async () => {
    // Service calls get what the validation pipe would hand them: the schema's output.
    const students = get(StudentsService);
    const student = await students.create(DEMO_OWNER, CreateStudent.parse({ name: 'New Learner', email: 'New.Learner@Students.test' }));
    expect(student.email).toBe('new.learner@students.test');
    const enrollment = await students.enroll(DEMO_OWNER, student.id, { course_id: 'crs-typescript-fundamentals' });
    expect(enrollment).toMatchObject({ course_title: 'TypeScript Fundamentals', progress_percent: 0, completed_at: null });
    const done = await students.updateEnrollment(DEMO_OWNER, student.id, enrollment.id, { progress_percent: 100 });
    expect(done.completed_at).not.toBeNull();
    expect(await refusal(students.enroll(DEMO_OWNER, student.id, { course_id: 'crs-typescript-fundamentals' }))).toMatch(/^409 conflict/);
    expect(await refusal(students.enroll(DEMO_OWNER, student.id, { course_id: 'no-such-course' }))).toMatch(/^400 invalid_request: course_id: /);
  });

  it('merges school settings and themes', async () => {
    const school = await get(SchoolService).update(DEMO_OWNER, { settings: { certificates_enabled: null, max_seats: 30 } });
    expect(school.settings).toEqual({ allow_self_enrollment: true, refund_window_days: 14, support_hours: 'Mon-Fri 9:00-17:00', max_seats: 30 });
    const theme = await get(AppearanceService).update(DEMO_OWNER, { accent_color: '#123abc' });
    expect(theme).toMatchObject({ accent_color: '#123abc', primary_color: '#4f46e5' });
  });

  it('seeds idempotently: a second run changes nothing', async () => {
    const prisma = get(PrismaService);
    const count = () => Promise.all([prisma.course.count(), prisma.order.count(), prisma.student.count(), prisma.member.count()]);
    const before = await count();
    await get(DemoDataSeeder).seed();
    expect(await count()).toEqual(before);
  });
});

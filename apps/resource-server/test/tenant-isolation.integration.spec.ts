import { NotFoundError, OAuthError } from '@platform/oauth-errors';
import { AccountService } from '../src/account/account.service';
import { AnalyticsService } from '../src/analytics/analytics.service';
import { CommentsService } from '../src/comments/comments.service';
import { CoursesService } from '../src/courses/courses.service';
import { CurriculumService } from '../src/curriculum/curriculum.service';
import { DigitalProductsService } from '../src/digital-products/digital-products.service';
import { FormsService } from '../src/forms/forms.service';
import { LecturersService } from '../src/lecturers/lecturers.service';
import { MembersService } from '../src/members/members.service';
import { MembershipPlansService } from '../src/membership-plans/membership-plans.service';
import { OrdersService } from '../src/orders/orders.service';
import { PostsService } from '../src/posts/posts.service';
import { SchoolService } from '../src/school/school.service';
import { StudentsService } from '../src/students/students.service';
import { SubscriptionsService } from '../src/subscriptions/subscriptions.service';
import { DEMO_OWNER, OTHER_OWNER } from './support/principals';
import { startTestResourceServer, type TestResourceServer } from './support/test-resource-server';

/** What an API error would answer: status and code. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OAuthError) return `${error.status} ${error.error}`;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('tenant isolation: a token of other-school against demo-school items', () => {
  let server: TestResourceServer;
  const get = <T>(type: new (...args: never[]) => T): T => server.app.get(type);

  beforeAll(async () => {
    server = await startTestResourceServer();
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('lists only its own school, whatever ?school= says', async () => {
    const courses = await get(CoursesService).list(OTHER_OWNER, { limit: 100 });
    expect(courses.data.map((course) => course.id).sort()).toEqual(['crs-nw-data-analysis', 'crs-nw-machine-learning']);
    const students = await get(StudentsService).list(OTHER_OWNER, { limit: 100 });
    expect(students.data.every((student) => student.id.startsWith('stu-nw-'))).toBe(true);
    expect(await refusal(get(CoursesService).list(OTHER_OWNER, { limit: 100, school: 'demo-school' }))).toBe('404 not_found');
    expect(await refusal(get(SchoolService).get(OTHER_OWNER, { school: 'demo-school' }))).toBe('404 not_found');
  });

  it.each([
    ['a course', () => get(CoursesService).get(OTHER_OWNER, 'crs-typescript-fundamentals', {})],
    ['a draft course', () => get(CoursesService).get(OTHER_OWNER, 'crs-advanced-typescript-patterns', {})],
    ['a curriculum', () => get(CurriculumService).outline(OTHER_OWNER, 'crs-typescript-fundamentals', {})],
    ['a lesson', () => get(CurriculumService).getLesson(OTHER_OWNER, 'crs-typescript-fundamentals', 'les-typescript-fundamentals-1-1', {})],
    ['a lecturer', () => get(LecturersService).get(OTHER_OWNER, 'lec-maya-chen', {})],
    ['a student', () => get(StudentsService).get(OTHER_OWNER, 'stu-001')],
    ['a student’s enrollments', () => get(StudentsService).listEnrollments(OTHER_OWNER, 'stu-001', { limit: 20 })],
    ['a member', () => get(MembersService).get(OTHER_OWNER, 'mem-01-owner')],
    ['an order', () => get(OrdersService).get(OTHER_OWNER, 'ord-0001')],
    ['a post', () => get(PostsService).get(OTHER_OWNER, 'pst-04-roadmap', {})],
    ['a comment', () => get(CommentsService).get(OTHER_OWNER, 'cmt-001')],
    ['comments of a post', () => get(CommentsService).listForPost(OTHER_OWNER, 'pst-01-welcome', { limit: 20 })],
    ['a membership plan', () => get(MembershipPlansService).get(OTHER_OWNER, 'pln-monthly-all-access', {})],
    ['a subscription', () => get(SubscriptionsService).get(OTHER_OWNER, 'sub-001')],
    ['a digital product', () => get(DigitalProductsService).get(OTHER_OWNER, 'dpr-nestjs-starter', {})],
    ['a form', () => get(FormsService).get(OTHER_OWNER, 'frm-contact')],
    ['a form submission', () => get(FormsService).getSubmission(OTHER_OWNER, 'frm-contact', 'sbm-001')],
  ])('cannot read %s (404)', async (_name, read) => {
    expect(await refusal(read())).toBe('404 not_found');
  });

  it.each([
    ['change a course', () => get(CoursesService).update(OTHER_OWNER, 'crs-typescript-fundamentals', { title: 'Hijacked' })],
    ['delete a course', () => get(CoursesService).remove(OTHER_OWNER, 'crs-typescript-fundamentals')],
    ['add a section to a course', () => get(CurriculumService).createSection(OTHER_OWNER, 'crs-typescript-fundamentals', { title: 'Injected' })],
    ['change a lesson', () => get(CurriculumService).updateLesson(OTHER_OWNER, 'crs-typescript-fundamentals', 'les-typescript-fundamentals-1-1', { title: 'x' })],
    ['change a lecturer', () => get(LecturersService).update(OTHER_OWNER, 'lec-maya-chen', { name: 'x' })],
    ['delete a student', () => get(StudentsService).remove(OTHER_OWNER, 'stu-001')],
    ['enroll a student', () => get(StudentsService).enroll(OTHER_OWNER, 'stu-001', { course_id: 'crs-typescript-fundamentals' })],
    ['demote the owner', () => get(MembersService).update(OTHER_OWNER, 'mem-01-owner', { role: 'support' })],
    ['remove a member', () => get(MembersService).remove(OTHER_OWNER, 'mem-02-admin')],
    ['publish a post', () => get(PostsService).update(OTHER_OWNER, 'pst-04-roadmap', { published: true })],
    ['cancel a subscription', () => get(SubscriptionsService).update(OTHER_OWNER, 'sub-001', { status: 'canceled' })],
    ['delete a plan', () => get(MembershipPlansService).remove(OTHER_OWNER, 'pln-legacy-basic')],
  ])('cannot %s (404)', async (_name, change) => {
    expect(await refusal(change())).toBe('404 not_found');
  });

  it.each([
    ['enroll its student in a demo course', () => get(StudentsService).enroll(OTHER_OWNER, 'stu-nw-001', { course_id: 'crs-typescript-fundamentals' })],
    ['give its course a demo lecturer', () => get(CoursesService).create(OTHER_OWNER, { title: 'Borrowed', price_cents: 100, lecturer_id: 'lec-maya-chen' })],
    ['subscribe its student to a demo plan', () => get(SubscriptionsService).create(OTHER_OWNER, { plan_id: 'pln-monthly-all-access', student_id: 'stu-nw-001' })],
    ['subscribe a demo student to its plan', () => get(SubscriptionsService).create(OTHER_OWNER, { plan_id: 'pln-nw-monthly', student_id: 'stu-001' })],
  ])('cannot link to demo items: %s (400)', async (_name, change) => {
    expect(await refusal(change())).toBe('400 invalid_request');
  });

  it('left every demo item as it was', async () => {
    const course = await get(CoursesService).get(DEMO_OWNER, 'crs-typescript-fundamentals', {});
    expect(course.title).toBe('TypeScript Fundamentals');
    const outline = await get(CurriculumService).outline(DEMO_OWNER, 'crs-typescript-fundamentals', {});
    expect(outline.sections.map((section) => section.title)).not.toContain('Injected');
    expect((await get(MembersService).get(DEMO_OWNER, 'mem-01-owner')).role).toBe('owner');
    expect((await get(PostsService).get(DEMO_OWNER, 'pst-04-roadmap', {})).published).toBe(false);
    expect((await get(SubscriptionsService).get(DEMO_OWNER, 'sub-001')).status).toBe('active');
    expect((await get(StudentsService).listEnrollments(DEMO_OWNER, 'stu-001', { limit: 100 })).data.length).toBeGreaterThan(0);
  });

  it('sees its own account and its own figures only', async () => {
    expect(await get(AccountService).get(OTHER_OWNER)).toMatchObject({ user_id: 'other-owner', role: 'owner', name: 'Olly Other' });
    const revenue = await get(AnalyticsService).revenue(OTHER_OWNER, { interval: 'month' });
    expect(revenue.currency).toBe('GBP');
    expect(revenue.totals).toMatchObject({ paid_orders: 3, gross_revenue_cents: 3 * 5900 });
    const top = await get(AnalyticsService).topCourses(OTHER_OWNER, { by: 'revenue', limit: 100 });
    expect(top.data.map((course) => course.course_id)).toEqual(['crs-nw-data-analysis']);
  });

  it('a demo token is not a member of other-school either', async () => {
    const intruder = { ...DEMO_OWNER, schoolId: 'other-school' };
    await expect(get(AccountService).get(intruder)).rejects.toBeInstanceOf(NotFoundError);
  });
});

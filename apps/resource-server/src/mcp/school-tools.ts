import { z } from 'zod';
import { ListSecurityEventsQuery, SecurityEventView } from '../audit-log/audit-log.dto';
import { RevenueQuery, RevenueReport, EnrollmentsReport, SeriesQuery, TopCoursesQuery, TopCoursesReport } from '../analytics/analytics.dto';
import { ref } from '../common/fields';
import { CouponView, CreateCoupon, ListCouponsQuery } from '../coupons/coupons.dto';
import { CourseView, CreateCourse, UpdateCourse } from '../courses/courses.dto';
import { CreateLesson, CreateSection, LessonView, SectionView } from '../curriculum/curriculum.dto';
import { CreateEvent, EventView } from '../events/events.dto';
import { ListMembersQuery, MemberView } from '../members/members.dto';
import { ListOrdersQuery, OrderView } from '../orders/orders.dto';
import { CreatePost, PostView } from '../posts/posts.dto';
import { EnrollmentView, ListEnrollmentsQuery, ListStudentsQuery, StudentView } from '../students/students.dto';
import { pageOf } from './catalog-schemas';
import { CREATE, defineTool, type McpTool, READ, UPDATE } from './tool-definition';

/**
 * The school's private tools. Each calls the REST API's service with the caller's principal:
 * the same validation (the REST zod schemas are the input schemas), the same school isolation
 * (the token's school, whatever the arguments say) and the same answers (the REST views are
 * the output schemas).
 */
const id = (what: string) => ref.describe(`The ${what} id`);

export const SCHOOL_TOOLS: readonly McpTool[] = [
  defineTool({
    name: 'list_students',
    title: 'List students',
    description: 'The students of your school, optionally only the one with an email or those enrolled in a course.',
    scopes: ['students:read'],
    annotations: READ,
    input: ListStudentsQuery,
    output: pageOf(StudentView),
    handler: (args, { services, principal }) => services.students.list(principal, args),
  }),
  defineTool({
    name: 'get_student',
    title: 'Get a student',
    description: 'One student of your school, with their number of enrollments.',
    scopes: ['students:read'],
    annotations: READ,
    input: z.object({ student_id: id('student') }),
    output: StudentView,
    handler: (args, { services, principal }) => services.students.get(principal, args.student_id),
  }),
  defineTool({
    name: 'list_student_enrollments',
    title: 'List a student’s enrollments',
    description: 'The courses a student of your school is enrolled in, with progress and completion.',
    scopes: ['students:read'],
    annotations: READ,
    input: ListEnrollmentsQuery.extend({ student_id: id('student') }),
    output: pageOf(EnrollmentView),
    handler: ({ student_id, ...page }, { services, principal }) => services.students.listEnrollments(principal, student_id, page),
  }),
  defineTool({
    name: 'list_members',
    title: 'List team members',
    description: 'The team members of your school and their roles.',
    scopes: ['members:read'],
    annotations: READ,
    input: ListMembersQuery,
    output: pageOf(MemberView),
    handler: (args, { services, principal }) => services.members.list(principal, args),
  }),
  defineTool({
    name: 'list_orders',
    title: 'List orders',
    description: 'The orders of your school with their items and status, one page at a time.',
    scopes: ['orders:read'],
    annotations: READ,
    input: ListOrdersQuery,
    output: pageOf(OrderView),
    handler: (args, { services, principal }) => services.orders.list(principal, args),
  }),
  defineTool({
    name: 'list_security_events',
    title: 'List security events',
    description:
      'Your school’s recent security events, newest first: sign-ins, consents, tokens issued, revocations, client registrations, rate-limit trips. School owners only.',
    scopes: ['audit_log:read'],
    annotations: READ,
    input: ListSecurityEventsQuery,
    output: pageOf(SecurityEventView),
    handler: (args, { services, principal }) => services.auditLog.list(principal, args),
  }),
  defineTool({
    name: 'revenue_report',
    title: 'Revenue report',
    description: 'Gross, refunded and net revenue per day or month, in one currency, in the school’s time zone.',
    scopes: ['analytics:read'],
    annotations: READ,
    input: RevenueQuery,
    output: RevenueReport,
    handler: (args, { services, principal }) => services.analytics.revenue(principal, args),
  }),
  defineTool({
    name: 'enrollments_report',
    title: 'Enrollments report',
    description: 'New enrollments and completions per day or month, in the school’s time zone.',
    scopes: ['analytics:read'],
    annotations: READ,
    input: SeriesQuery,
    output: EnrollmentsReport,
    handler: (args, { services, principal }) => services.analytics.enrollments(principal, args),
  }),
  defineTool({
    name: 'top_courses',
    title: 'Top courses',
    description: 'The school’s courses ranked by revenue or by enrollments over a period.',
    scopes: ['analytics:read'],
    annotations: READ,
    input: TopCoursesQuery,
    output: TopCoursesReport,
    handler: (args, { services, principal }) => services.analytics.topCourses(principal, args),
  }),
  defineTool({
    name: 'list_coupons',
    title: 'List coupons',
    description: 'The discount coupons of your school.',
    scopes: ['coupons:read'],
    annotations: READ,
    input: ListCouponsQuery,
    output: pageOf(CouponView),
    handler: (args, { services, principal }) => services.coupons.list(principal, args),
  }),
  defineTool({
    name: 'create_coupon',
    title: 'Create a coupon',
    description: 'A new discount coupon for your school (a percentage or a fixed amount off).',
    scopes: ['coupons:write'],
    annotations: CREATE,
    input: CreateCoupon,
    output: CouponView,
    handler: (args, { services, principal }) => services.coupons.create(principal, args),
  }),
  defineTool({
    name: 'create_course',
    title: 'Create a course',
    description: 'A new course in your school; unpublished unless `published` is true.',
    scopes: ['courses:write'],
    annotations: CREATE,
    input: CreateCourse,
    output: CourseView,
    handler: (args, { services, principal }) => services.courses.create(principal, args),
  }),
  defineTool({
    name: 'update_course',
    title: 'Update a course',
    description: 'Changes the given fields of a course of your school (publishing it, its price, its text…).',
    scopes: ['courses:write'],
    annotations: UPDATE,
    input: UpdateCourse.extend({ course_id: id('course') }),
    output: CourseView,
    handler: ({ course_id, ...changes }, { services, principal }) => services.courses.update(principal, course_id, changes),
  }),
  defineTool({
    name: 'add_section',
    title: 'Add a course section',
    description: 'A new section in a course’s curriculum, after the last one unless `position` says otherwise.',
    scopes: ['curriculum:write'],
    annotations: CREATE,
    input: CreateSection.extend({ course_id: id('course') }),
    output: SectionView,
    handler: ({ course_id, ...section }, { services, principal }) => services.curriculum.createSection(principal, course_id, section),
  }),
  defineTool({
    name: 'add_lesson',
    title: 'Add a lesson',
    description: 'A new lesson in a section of a course, after the section’s last lesson unless `position` says otherwise.',
    scopes: ['curriculum:write'],
    annotations: CREATE,
    input: CreateLesson.extend({ course_id: id('course'), section_id: id('section') }),
    output: LessonView,
    handler: ({ course_id, section_id, ...lesson }, { services, principal }) =>
      services.curriculum.createLesson(principal, course_id, section_id, lesson),
  }),
  defineTool({
    name: 'create_event',
    title: 'Create an event',
    description: 'A new event of your school (a live session, a webinar…), public or private.',
    scopes: ['events:write'],
    annotations: CREATE,
    input: CreateEvent,
    output: EventView,
    handler: (args, { services, principal }) => services.events.create(principal, args),
  }),
  defineTool({
    name: 'create_post',
    title: 'Write a blog post',
    description: 'A new blog post of your school; a draft unless `published` is true.',
    scopes: ['posts:write'],
    annotations: CREATE,
    input: CreatePost,
    output: PostView,
    handler: (args, { services, principal }) => services.posts.create(principal, args),
  }),
];

import { ANONYMOUS } from '@platform/bearer-auth';
import { NotFoundError } from '@platform/oauth-errors';
import { z } from 'zod';
import { encodeCursor, type Page, positionPage } from '../common/pagination';
import type { CourseDto } from '../courses/courses.dto';
import type { EventDto } from '../events/events.dto';
import {
  pageOf,
  publicCourse,
  publicCourseDetail,
  publicDigitalProduct,
  publicEvent,
  publicLecturer,
  publicMembershipPlan,
  publicSchoolProfile,
} from './catalog-schemas';
import type { SchoolServices } from './school-services';
import { defineTool, type McpTool, READ, type ToolContext, ToolNotFound } from './tool-definition';

export const MAX_PAGE_SIZE = 100;

/**
 * The public catalog tools: what an anonymous caller of the API sees, for anyone, with or
 * without a token (no scope). Each calls the REST API's own service with the anonymous
 * principal, so the tool and the route cannot disagree about what is public (published
 * courses, public events, active plans...): the tool only picks the fields its output schema
 * names. A token does not change what they answer.
 */
const school = z.string().min(1).max(100).optional().describe('The school’s id; default: the platform’s default school');
const limit = z.number().int().min(1).max(MAX_PAGE_SIZE).default(20).describe(`Items per page (1-${MAX_PAGE_SIZE})`);
const cursor = z.string().min(1).max(512).optional().describe('The next_cursor of the previous page');
const listInput = z.object({ school, limit, cursor });

type SchoolArgs = { school?: string };
type ListArgs = SchoolArgs & { limit: number; cursor?: string };
const schoolOf = (args: SchoolArgs, context: ToolContext) => args.school ?? context.defaultSchoolId;
/** The REST list query of a tool's arguments, in the tool's school. */
const listQuery = (args: ListArgs, context: ToolContext) => ({ school: schoolOf(args, context), limit: args.limit, cursor: args.cursor });

/** The REST 404 (no such school, or no such public item) as the tool error the model reads. */
async function orNotFound<T>(read: Promise<T>, message: string): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof NotFoundError) throw new ToolNotFound(message);
    throw error;
  }
}
const noSchool = (args: SchoolArgs, context: ToolContext) => `No school with the id "${schoolOf(args, context)}"`;

type ListQuery = ReturnType<typeof listQuery>;

/** A list tool's handler: the REST list of the tool's school, read as the anonymous caller, in the tool's item shape. */
function anonymousList<Item extends z.ZodObject>(item: Item, list: (services: SchoolServices, query: ListQuery) => Promise<Page<unknown>>) {
  return async (args: ListArgs, context: ToolContext) =>
    pageOf(item).parse(await orNotFound(list(context.services, listQuery(args, context)), noSchool(args, context)));
}

export const CATALOG_TOOLS: readonly McpTool[] = [
  defineTool({
    name: 'list_courses',
    title: 'List courses',
    description: 'The published courses of a school, in a stable order, one page at a time.',
    scopes: [],
    annotations: READ,
    input: listInput,
    output: pageOf(publicCourse),
    handler: anonymousList(publicCourse, (services, query) => services.courses.list(ANONYMOUS, query)),
  }),
  defineTool({
    name: 'search_courses',
    title: 'Search courses',
    description: 'Published courses whose title, summary or description contains the query text (case-insensitive).',
    scopes: [],
    annotations: READ,
    input: listInput.extend({
      query: z.string().trim().min(1).max(200).describe('Words to look for, e.g. "sql" or "watercolor basics"'),
    }),
    output: pageOf(publicCourse),
    handler: async (args, context) =>
      pageOf(publicCourse).parse(await orNotFound(searchCourses(args, context), noSchool(args, context))),
  }),
  defineTool({
    name: 'get_course',
    title: 'Get a course',
    description: 'One published course with its description, lecturer and curriculum outline (section and lesson titles).',
    scopes: [],
    annotations: READ,
    input: z.object({ course_id: z.string().min(1).max(200).describe('The course id (from list_courses or search_courses)'), school }),
    output: publicCourseDetail,
    handler: async (args, context) =>
      orNotFound(
        getCourse(args.course_id, schoolOf(args, context), context),
        `No published course with the id "${args.course_id}" in the school "${schoolOf(args, context)}"`,
      ),
  }),
  defineTool({
    name: 'list_lecturers',
    title: 'List lecturers',
    description: 'The lecturer profiles of a school.',
    scopes: [],
    annotations: READ,
    input: listInput,
    output: pageOf(publicLecturer),
    handler: anonymousList(publicLecturer, (services, query) => services.lecturers.list(ANONYMOUS, query)),
  }),
  defineTool({
    name: 'list_events',
    title: 'List upcoming events',
    description: 'The public events of a school that have not started yet, soonest first.',
    scopes: [],
    // Not idempotent in the MCP sense of "same answer": time moves events out of the list.
    annotations: { ...READ, idempotentHint: false },
    input: listInput,
    output: pageOf(publicEvent),
    handler: async (args, context) => pageOf(publicEvent).parse(await orNotFound(upcomingEvents(args, context), noSchool(args, context))),
  }),
  defineTool({
    name: 'list_membership_plans',
    title: 'List membership plans',
    description: 'The membership plans a school offers (active plans only).',
    scopes: [],
    annotations: READ,
    input: listInput,
    output: pageOf(publicMembershipPlan),
    handler: anonymousList(publicMembershipPlan, (services, query) => services.membershipPlans.list(ANONYMOUS, query)),
  }),
  defineTool({
    name: 'list_digital_products',
    title: 'List digital products',
    description: 'The published digital products (e-books, templates, recordings…) of a school.',
    scopes: [],
    annotations: READ,
    input: listInput,
    output: pageOf(publicDigitalProduct),
    handler: anonymousList(publicDigitalProduct, (services, query) => services.digitalProducts.list(ANONYMOUS, query)),
  }),
  defineTool({
    name: 'get_school_profile',
    title: 'Get the school profile',
    description: 'A school’s public profile: name, description, website, contact, currency, locale and time zone.',
    scopes: [],
    annotations: READ,
    input: z.object({ school }),
    output: publicSchoolProfile,
    handler: async (args, context) =>
      publicSchoolProfile.parse(await orNotFound(context.services.school.get(ANONYMOUS, { school: schoolOf(args, context) }), noSchool(args, context))),
  }),
];

/** The course (REST GET /courses/{id}), its lecturer's name and headline, and its public outline (no lesson content). */
async function getCourse(courseId: string, schoolId: string, { services }: ToolContext) {
  const query = { school: schoolId };
  const course = await services.courses.get(ANONYMOUS, courseId, query);
  const [outline, lecturer] = await Promise.all([
    services.curriculum.outline(ANONYMOUS, courseId, query),
    course.lecturer_id ? services.lecturers.get(ANONYMOUS, course.lecturer_id, query) : null,
  ]);
  return publicCourseDetail.parse({
    ...course,
    lecturer: lecturer && { id: lecturer.id, name: lecturer.name, headline: lecturer.headline },
    outline: outline.sections,
  });
}

/**
 * The REST course list has no text filter: search reads the anonymous course list (its order,
 * its cursors) page after page and keeps the matches. When a page of matches is full, the
 * cursor handed back is one the REST list issued: the list up to the last match, asked again.
 */
async function searchCourses(args: ListArgs & { query: string }, context: ToolContext): Promise<Page<CourseDto>> {
  const text = args.query.toLowerCase();
  const matches = (course: CourseDto) => [course.title, course.summary, course.description].some((field) => field.toLowerCase().includes(text));
  const found: CourseDto[] = [];
  let from = args.cursor;
  for (;;) {
    const query = { school: schoolOf(args, context), limit: MAX_PAGE_SIZE, cursor: from };
    const page = await context.services.courses.list(ANONYMOUS, query);
    for (const [index, course] of page.data.entries()) {
      if (!matches(course)) continue;
      if (found.length === args.limit) {
        // One more match exists: the next page starts after the items before it, which the
        // REST list says with its own cursor (at the start of this page: the one that asked for it).
        const next = index === 0 ? from : (await context.services.courses.list(ANONYMOUS, { ...query, limit: index })).next_cursor;
        return { data: found, next_cursor: next ?? null };
      }
      found.push(course);
    }
    if (page.next_cursor === null) return { data: found, next_cursor: null };
    from = page.next_cursor;
  }
}

/**
 * Upcoming public events, soonest first. The REST list (`?upcoming=true`, the anonymous
 * view) pages by id; the tool reads all of it and pages it by (starts_at, id), with the cursor
 * shape of the API's position-ordered lists.
 */
async function upcomingEvents(args: ListArgs, context: ToolContext): Promise<Page<EventDto>> {
  const after = positionPage({ limit: args.limit, cursor: args.cursor }).after;
  const events: EventDto[] = [];
  let from: string | undefined;
  do {
    const page = await context.services.events.list(ANONYMOUS, { school: schoolOf(args, context), upcoming: true, limit: MAX_PAGE_SIZE, cursor: from });
    events.push(...page.data);
    from = page.next_cursor ?? undefined;
  } while (from !== undefined);
  const key = (event: EventDto) => [Date.parse(event.starts_at), event.id] as const;
  const compare = (a: readonly [number, string], b: readonly [number, string]) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
  const rest = events
    .sort((a, b) => compare(key(a), key(b)))
    .filter((event) => !after || compare(key(event), [after.position, after.id]) > 0);
  const data = rest.slice(0, args.limit);
  const last = data.at(-1);
  return { data, next_cursor: rest.length > args.limit && last ? encodeCursor(key(last)) : null };
}

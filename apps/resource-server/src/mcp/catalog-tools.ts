import { z } from 'zod';
import type { PageRequest } from './catalog-reader';
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
import { defineTool, found, type McpTool, READ, type ToolContext } from './tool-definition';

export const MAX_PAGE_SIZE = 100;

/**
 * The public catalog tools: what an anonymous caller of the API sees, for anyone, with or
 * without a token (no scope). A token does not change what they answer: they always read the
 * public view of the school named by `school`.
 */
const school = z.string().min(1).max(100).optional().describe('The school’s id; default: the platform’s default school');
const limit = z.number().int().min(1).max(MAX_PAGE_SIZE).default(20).describe(`Items per page (1-${MAX_PAGE_SIZE})`);
const cursor = z.string().min(1).max(512).optional().describe('The next_cursor of the previous page');
const listInput = z.object({ school, limit, cursor });

type SchoolArgs = { school?: string };
const schoolOf = (args: SchoolArgs, context: ToolContext) => args.school ?? context.defaultSchoolId;
const page = (args: { limit: number; cursor?: string }): PageRequest => ({ limit: args.limit, cursor: args.cursor });
const noSchool = (args: SchoolArgs, context: ToolContext) => `No school with the id "${schoolOf(args, context)}"`;

export const CATALOG_TOOLS: readonly McpTool[] = [
  defineTool({
    name: 'list_courses',
    title: 'List courses',
    description: 'The published courses of a school, in a stable order, one page at a time.',
    scopes: [],
    annotations: READ,
    input: listInput,
    output: pageOf(publicCourse),
    handler: async (args, context) => found(await context.catalog.listCourses(schoolOf(args, context), page(args)), noSchool(args, context)),
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
      found(await context.catalog.searchCourses(schoolOf(args, context), args.query, page(args)), noSchool(args, context)),
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
      found(
        await context.catalog.getCourse(schoolOf(args, context), args.course_id),
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
    handler: async (args, context) => found(await context.catalog.listLecturers(schoolOf(args, context), page(args)), noSchool(args, context)),
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
    handler: async (args, context) =>
      found(await context.catalog.listEvents(schoolOf(args, context), page(args), new Date()), noSchool(args, context)),
  }),
  defineTool({
    name: 'list_membership_plans',
    title: 'List membership plans',
    description: 'The membership plans a school offers (active plans only).',
    scopes: [],
    annotations: READ,
    input: listInput,
    output: pageOf(publicMembershipPlan),
    handler: async (args, context) =>
      found(await context.catalog.listMembershipPlans(schoolOf(args, context), page(args)), noSchool(args, context)),
  }),
  defineTool({
    name: 'list_digital_products',
    title: 'List digital products',
    description: 'The published digital products (e-books, templates, recordings…) of a school.',
    scopes: [],
    annotations: READ,
    input: listInput,
    output: pageOf(publicDigitalProduct),
    handler: async (args, context) =>
      found(await context.catalog.listDigitalProducts(schoolOf(args, context), page(args)), noSchool(args, context)),
  }),
  defineTool({
    name: 'get_school_profile',
    title: 'Get the school profile',
    description: 'A school’s public profile: name, description, website, contact, currency, locale and time zone.',
    scopes: [],
    annotations: READ,
    input: z.object({ school }),
    output: publicSchoolProfile,
    handler: async (args, context) => found(await context.catalog.getSchoolProfile(schoolOf(args, context)), noSchool(args, context)),
  }),
];

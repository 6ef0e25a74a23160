import { Logger } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OAuthError } from '@platform/oauth-errors';
import { z } from 'zod';
import { RESOURCE_PATHS } from '../documents/documents-options';
import type { CatalogReader, PageRequest } from './catalog-reader';
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

export interface CatalogServerOptions {
  /** The school a call without `school` looks at (DEFAULT_SCHOOL_ID). */
  readonly defaultSchoolId: string;
  readonly publicBaseUrl: string;
  readonly version?: string;
}

export const MAX_PAGE_SIZE = 100;

/** Every catalog tool only reads public data: safe to call and to repeat. */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const logger = new Logger('McpCatalog');

/**
 * A fresh MCP server with the catalog tools. Stateless: one is made per HTTP request, so no
 * state is shared between callers.
 */
export function createCatalogServer(reader: CatalogReader, options: CatalogServerOptions): McpServer {
  const server = new McpServer(
    { name: 'course-platform-catalog', title: 'Course platform catalog', version: options.version ?? '1.0.0' },
    {
      capabilities: { tools: {} },
      instructions:
        `Read-only tools over the public catalog of the course platform's schools: published courses and their ` +
        `outlines, lecturers, upcoming public events, membership plans, digital products and school profiles. ` +
        `No authentication is needed. Calls without \`school\` look at the school "${options.defaultSchoolId}". ` +
        `Lists are paginated: pass \`next_cursor\` back as \`cursor\`. The authenticated REST API is described at ` +
        `${options.publicBaseUrl}${RESOURCE_PATHS.openApi} and ${options.publicBaseUrl}${RESOURCE_PATHS.authGuide}.`,
    },
  );

  const school = z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(`The school's id; default "${options.defaultSchoolId}"`);
  const limit = z.number().int().min(1).max(MAX_PAGE_SIZE).default(20).describe(`Items per page (1-${MAX_PAGE_SIZE})`);
  const cursor = z.string().min(1).max(512).optional().describe('The next_cursor of the previous page');
  const schoolOf = (args: { school?: string }) => args.school ?? options.defaultSchoolId;
  const page = (args: { limit: number; cursor?: string }): PageRequest => ({ limit: args.limit, cursor: args.cursor });
  const noSchool = (args: { school?: string }) => `No school with the id "${schoolOf(args)}"`;

  server.registerTool(
    'list_courses',
    {
      title: 'List courses',
      description: 'The published courses of a school, in a stable order, one page at a time.',
      inputSchema: { school, limit, cursor },
      outputSchema: pageOf(publicCourse),
      annotations: READ_ONLY,
    },
    (args) => answer(() => reader.listCourses(schoolOf(args), page(args)), () => noSchool(args)),
  );

  server.registerTool(
    'search_courses',
    {
      title: 'Search courses',
      description: 'Published courses whose title, summary or description contains the query text (case-insensitive).',
      inputSchema: {
        query: z.string().trim().min(1).max(200).describe('Words to look for, e.g. "sql" or "watercolor basics"'),
        school,
        limit,
        cursor,
      },
      outputSchema: pageOf(publicCourse),
      annotations: READ_ONLY,
    },
    (args) => answer(() => reader.searchCourses(schoolOf(args), args.query, page(args)), () => noSchool(args)),
  );

  server.registerTool(
    'get_course',
    {
      title: 'Get a course',
      description: 'One published course with its description, lecturer and curriculum outline (section and lesson titles).',
      inputSchema: { course_id: z.string().min(1).max(200).describe('The course id (from list_courses or search_courses)'), school },
      outputSchema: publicCourseDetail,
      annotations: READ_ONLY,
    },
    (args) =>
      answer(
        () => reader.getCourse(schoolOf(args), args.course_id),
        () => `No published course with the id "${args.course_id}" in the school "${schoolOf(args)}"`,
      ),
  );

  server.registerTool(
    'list_lecturers',
    {
      title: 'List lecturers',
      description: 'The lecturer profiles of a school.',
      inputSchema: { school, limit, cursor },
      outputSchema: pageOf(publicLecturer),
      annotations: READ_ONLY,
    },
    (args) => answer(() => reader.listLecturers(schoolOf(args), page(args)), () => noSchool(args)),
  );

  server.registerTool(
    'list_events',
    {
      title: 'List upcoming events',
      description: 'The public events of a school that have not started yet, soonest first.',
      inputSchema: { school, limit, cursor },
      outputSchema: pageOf(publicEvent),
      annotations: { ...READ_ONLY, idempotentHint: false },
    },
    (args) => answer(() => reader.listEvents(schoolOf(args), page(args), new Date()), () => noSchool(args)),
  );

  server.registerTool(
    'list_membership_plans',
    {
      title: 'List membership plans',
      description: 'The membership plans a school offers (active plans only).',
      inputSchema: { school, limit, cursor },
      outputSchema: pageOf(publicMembershipPlan),
      annotations: READ_ONLY,
    },
    (args) => answer(() => reader.listMembershipPlans(schoolOf(args), page(args)), () => noSchool(args)),
  );

  server.registerTool(
    'list_digital_products',
    {
      title: 'List digital products',
      description: 'The published digital products (e-books, templates, recordings…) of a school.',
      inputSchema: { school, limit, cursor },
      outputSchema: pageOf(publicDigitalProduct),
      annotations: READ_ONLY,
    },
    (args) => answer(() => reader.listDigitalProducts(schoolOf(args), page(args)), () => noSchool(args)),
  );

  server.registerTool(
    'get_school_profile',
    {
      title: 'Get the school profile',
      description: 'A school’s public profile: name, description, website, contact, currency, locale and time zone.',
      inputSchema: { school },
      outputSchema: publicSchoolProfile,
      annotations: READ_ONLY,
    },
    (args) => answer(() => reader.getSchoolProfile(schoolOf(args)), () => noSchool(args)),
  );

  return server;
}

/**
 * A tool's answer: the value as structured content and, since "a tool that returns structured
 * content SHOULD also return the serialized JSON in a TextContent block" (MCP tools
 * specification), as text. A missing school or item, or a bad cursor, is a tool error the
 * model can read; anything unexpected is logged and answered with a generic message (no SQL
 * or stack in the answer).
 */
async function answer<T extends object>(read: () => Promise<T | null>, missing: () => string): Promise<CallToolResult> {
  try {
    const value = await read();
    if (value === null) return toolError(missing());
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
  } catch (error) {
    if (error instanceof OAuthError && error.status < 500) return toolError(error.description);
    logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return toolError('The server encountered an unexpected condition; try again later');
  }
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

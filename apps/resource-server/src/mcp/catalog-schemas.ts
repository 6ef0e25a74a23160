import { z } from 'zod';
import { LecturerView } from '../lecturers/lecturers.dto';

/**
 * The shapes the public MCP tools return (their `outputSchema`): each picks, by name, fields of
 * the REST view the tool's service returns to an anonymous caller (snake_case, RFC 3339 dates,
 * prices in cents). Parsing a REST view with one of these keeps exactly those fields.
 */
const isoDateTime = z.string().describe('RFC 3339 date-time, UTC');

export const publicCourse = z.object({
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  summary: z.string(),
  level: z.string().describe('beginner | intermediate | advanced'),
  price_cents: z.number().int().describe('Price in cents of `currency`'),
  currency: z.string().describe('ISO 4217'),
  lecturer_id: z.string().nullable(),
  published_at: isoDateTime.nullable(),
});

export const publicCourseDetail = publicCourse.extend({
  description: z.string().describe('Markdown'),
  lecturer: z.object({ id: z.string(), name: z.string(), headline: z.string() }).nullable(),
  outline: z
    .array(
      z.object({
        id: z.string(),
        title: z.string(),
        lessons: z.array(
          z.object({
            id: z.string(),
            title: z.string(),
            kind: z.string().describe('video | text | quiz | download'),
            duration_minutes: z.number().int().nullable(),
          }),
        ),
      }),
    )
    .describe('Sections in order, each with its lesson titles in order (no lesson content)'),
});

/** The REST view's fields (a lecturer's profile is public), without its timestamps. */
export const publicLecturer = LecturerView.pick({ id: true, name: true, headline: true, bio: true, avatar_url: true, website_url: true });

export const publicEvent = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  location: z.string().nullable(),
  online_url: z.string().nullable(),
  starts_at: isoDateTime,
  ends_at: isoDateTime.nullable(),
  capacity: z.number().int().nullable(),
});

export const publicMembershipPlan = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  price_cents: z.number().int(),
  currency: z.string(),
  interval: z.string().describe('month | year'),
  features: z.array(z.string()),
});

export const publicDigitalProduct = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  price_cents: z.number().int(),
  currency: z.string(),
  kind: z.string().describe('ebook | template | audio | video | bundle | other'),
});

export const publicSchoolProfile = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  website_url: z.string().nullable(),
  contact_email: z.string().nullable(),
  currency: z.string(),
  locale: z.string(),
  timezone: z.string(),
});

/** `{ data, next_cursor }`: the REST API's page shape. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
  });
}

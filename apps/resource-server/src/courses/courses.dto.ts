import { z } from 'zod';
import { cents, currency, isoOut, longText, queryFlag, ref, shortText, slug, title } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';
import { schoolQuery } from '../tenancy/viewer';

export const COURSE_LEVELS = ['beginner', 'intermediate', 'advanced'] as const;

export const CourseView = z.object({
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  summary: z.string(),
  description: z.string(),
  level: z.enum(COURSE_LEVELS),
  price_cents: z.number().int().describe('Price in the smallest unit of the currency'),
  currency: z.string(),
  lecturer_id: z.string().nullable(),
  published: z.boolean(),
  published_at: isoOut.nullable(),
  created_at: isoOut,
  updated_at: isoOut,
});
export class CourseDto extends zodDto(CourseView, 'output') {}

export const ListCoursesQuery = pageQuery.extend({
  ...schoolQuery.shape,
  slug: slug.optional().describe('Only the course with this slug'),
  lecturer_id: ref.optional().describe('Only courses of this lecturer'),
  published: queryFlag.optional().describe('Token callers: filter by published state (anonymous callers only ever see published courses)'),
});
export class ListCoursesQueryDto extends zodDto(ListCoursesQuery, 'input') {}

const courseFields = {
  title,
  slug: slug.optional().describe('Defaults to one made from the title'),
  summary: shortText(500).optional(),
  description: longText.optional(),
  level: z.enum(COURSE_LEVELS).optional(),
  price_cents: cents,
  currency: currency.optional().describe('Defaults to the school’s currency'),
  lecturer_id: ref.nullable().optional(),
  published: z.boolean().optional(),
};

export const CreateCourse = z.strictObject(courseFields);
export class CreateCourseDto extends zodDto(CreateCourse, 'input') {}

export const UpdateCourse = z.strictObject(courseFields).partial();
export class UpdateCourseDto extends zodDto(UpdateCourse, 'input') {}

import { z } from 'zod';
import { isoOut, longText, ref, title } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';
import { schoolQuery } from '../tenancy/viewer';

export const LESSON_KINDS = ['video', 'text', 'quiz', 'download'] as const;

export const SectionView = z.object({
  id: z.string(),
  course_id: z.string(),
  title: z.string(),
  position: z.number().int().describe('Sections are listed by position, then id'),
  created_at: isoOut,
  updated_at: isoOut,
});
export class SectionDto extends zodDto(SectionView, 'output') {}

export const LessonView = z.object({
  id: z.string(),
  course_id: z.string(),
  section_id: z.string(),
  title: z.string(),
  kind: z.enum(LESSON_KINDS),
  duration_minutes: z.number().int().nullable(),
  position: z.number().int(),
  content: z.string().optional().describe('Markdown. Absent for anonymous callers: the public outline has titles only'),
  created_at: isoOut,
  updated_at: isoOut,
});
export class LessonDto extends zodDto(LessonView, 'output') {}

const OutlineLesson = z.object({
  id: z.string(),
  title: z.string(),
  kind: z.enum(LESSON_KINDS),
  duration_minutes: z.number().int().nullable(),
  position: z.number().int(),
});

const OutlineSection = z.object({
  id: z.string(),
  title: z.string(),
  position: z.number().int(),
  lessons: z.array(OutlineLesson),
});

export const CurriculumView = z.object({
  course_id: z.string(),
  section_count: z.number().int(),
  lesson_count: z.number().int(),
  total_duration_minutes: z.number().int(),
  sections: z.array(OutlineSection).describe('Every section in order, with its lessons in order (titles only, no content)'),
});
export class CurriculumDto extends zodDto(CurriculumView, 'output') {}

export const ListCurriculumQuery = pageQuery.extend(schoolQuery.shape);
export class ListCurriculumQueryDto extends zodDto(ListCurriculumQuery, 'input') {}

const position = z.number().int().min(0).max(1_000_000);

export const CreateSection = z.strictObject({
  title,
  position: position.optional().describe('Defaults to after the last section'),
});
export class CreateSectionDto extends zodDto(CreateSection, 'input') {}

export const UpdateSection = CreateSection.partial();
export class UpdateSectionDto extends zodDto(UpdateSection, 'input') {}

const lessonFields = {
  title,
  kind: z.enum(LESSON_KINDS).optional(),
  content: longText.optional(),
  duration_minutes: z.number().int().min(0).max(10_000).nullable().optional(),
  position: position.optional().describe('Defaults to after the last lesson of the section'),
};

export const CreateLesson = z.strictObject(lessonFields);
export class CreateLessonDto extends zodDto(CreateLesson, 'input') {}

export const UpdateLesson = z
  .strictObject({ ...lessonFields, section_id: ref.describe('Move the lesson to another section of the same course') })
  .partial();
export class UpdateLessonDto extends zodDto(UpdateLesson, 'input') {}

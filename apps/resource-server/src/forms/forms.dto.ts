import { z } from 'zod';
import { isoOut } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';

export const FIELD_TYPES = ['text', 'email', 'textarea', 'select', 'checkbox', 'number'] as const;

export const FormField = z.object({
  name: z.string(),
  label: z.string(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean(),
  options: z.array(z.string()).optional().describe('The choices of a select field'),
});

export const FormView = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  fields: z.array(FormField),
  submission_count: z.number().int(),
  created_at: isoOut,
  updated_at: isoOut,
});
export class FormDto extends zodDto(FormView, 'output') {}

export const Answer = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

export const FormSubmissionView = z.object({
  id: z.string(),
  form_id: z.string(),
  answers: z.record(z.string(), Answer).describe('Answers by field name'),
  submitter_email: z.string().nullable(),
  submitted_at: isoOut,
});
export class FormSubmissionDto extends zodDto(FormSubmissionView, 'output') {}

export const ListFormsQuery = pageQuery;
export class ListFormsQueryDto extends zodDto(ListFormsQuery, 'input') {}

export const ListSubmissionsQuery = pageQuery;
export class ListSubmissionsQueryDto extends zodDto(ListSubmissionsQuery, 'input') {}

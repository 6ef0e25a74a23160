import { z } from 'zod';
import { email, isoOut, name, ref } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';

export const StudentView = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  enrollment_count: z.number().int(),
  created_at: isoOut,
  updated_at: isoOut,
});
export class StudentDto extends zodDto(StudentView, 'output') {}

export const ListStudentsQuery = pageQuery.extend({
  email: z.string().max(320).optional().describe('Only the student with this email (case-insensitive)'),
  course_id: ref.optional().describe('Only students enrolled in this course'),
});
export class ListStudentsQueryDto extends zodDto(ListStudentsQuery, 'input') {}

export const CreateStudent = z.strictObject({ name, email });
export class CreateStudentDto extends zodDto(CreateStudent, 'input') {}

export const UpdateStudent = CreateStudent.partial();
export class UpdateStudentDto extends zodDto(UpdateStudent, 'input') {}

export const EnrollmentView = z.object({
  id: z.string(),
  student_id: z.string(),
  course_id: z.string(),
  course_title: z.string(),
  enrolled_at: isoOut,
  progress_percent: z.number().int().min(0).max(100),
  completed_at: isoOut.nullable(),
});
export class EnrollmentDto extends zodDto(EnrollmentView, 'output') {}

export const ListEnrollmentsQuery = pageQuery;
export class ListEnrollmentsQueryDto extends zodDto(ListEnrollmentsQuery, 'input') {}

const progress = z.number().int().min(0).max(100);

export const CreateEnrollment = z.strictObject({
  course_id: ref,
  progress_percent: progress.optional(),
});
export class CreateEnrollmentDto extends zodDto(CreateEnrollment, 'input') {}

export const UpdateEnrollment = z
  .strictObject({ progress_percent: progress.describe('100 marks the enrollment completed') })
  .partial();
export class UpdateEnrollmentDto extends zodDto(UpdateEnrollment, 'input') {}

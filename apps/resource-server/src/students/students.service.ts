import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError } from '@platform/oauth-errors';
import { notFound, write } from '../common/errors';
import { iso, isoOrNull } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import { EventOutbox } from '../outbox/event-outbox';
import { ViewerService } from '../tenancy/viewer.service';
import type {
  CreateEnrollmentDto,
  CreateStudentDto,
  EnrollmentDto,
  ListEnrollmentsQueryDto,
  ListStudentsQueryDto,
  StudentDto,
  UpdateEnrollmentDto,
  UpdateStudentDto,
} from './students.dto';
import { type EnrollmentRow, StudentsRepository, type StudentRow } from './students.repository';

export function toStudentView(student: StudentRow): StudentDto {
  return {
    id: student.id,
    name: student.name,
    email: student.email,
    enrollment_count: student._count.enrollments,
    created_at: iso(student.createdAt),
    updated_at: iso(student.updatedAt),
  };
}

export function toEnrollmentView(enrollment: EnrollmentRow): EnrollmentDto {
  return {
    id: enrollment.id,
    student_id: enrollment.studentId,
    course_id: enrollment.courseId,
    course_title: enrollment.course.title,
    enrolled_at: iso(enrollment.enrolledAt),
    progress_percent: enrollment.progressPercent,
    completed_at: isoOrNull(enrollment.completedAt),
  };
}

/** Completion follows progress: 100 % completes an enrollment, anything less reopens it. */
function completion(progress: number | undefined): { completedAt?: Date | null } {
  if (progress === undefined) return {};
  return { completedAt: progress === 100 ? new Date() : null };
}

const EMAIL_TAKEN = 'A student with this email already exists in the school';

/** Students are private to the school's staff: every route needs a token. */
@Injectable()
export class StudentsService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly students: StudentsRepository,
    private readonly outbox: EventOutbox,
  ) {}

  async list(principal: AuthPrincipal, query: ListStudentsQueryDto): Promise<Page<StudentDto>> {
    const { schoolId } = await this.viewers.staff(principal);
    const page = idPage(query);
    const rows = await this.students.findStudentsPage(schoolId, { email: query.email, courseId: query.course_id }, page);
    return toPage(rows, page.take, byId, toStudentView);
  }

  async get(principal: AuthPrincipal, id: string): Promise<StudentDto> {
    const { schoolId } = await this.viewers.staff(principal);
    return toStudentView(await this.requireStudent(schoolId, id));
  }

  async create(principal: AuthPrincipal, input: CreateStudentDto): Promise<StudentDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const student = await write(
      () =>
        this.outbox.write(
          schoolId,
          principal,
          (tx) => this.students.insertStudent(schoolId, input, tx),
          (row) => [{ type: 'student.created', subject: { type: 'student', id: row.id }, data: toStudentView(row) }],
        ),
      { notFound: 'school', conflict: EMAIL_TAKEN },
    );
    return toStudentView(student);
  }

  async update(principal: AuthPrincipal, id: string, input: UpdateStudentDto): Promise<StudentDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const student = await write(() => this.students.updateStudent(schoolId, id, { name: input.name, email: input.email }), {
      notFound: 'student',
      conflict: EMAIL_TAKEN,
    });
    return toStudentView(student);
  }

  /** Enrollments and subscriptions go with the student; orders stay, without the link. */
  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await write(() => this.students.deleteStudent(schoolId, id), { notFound: 'student' });
  }

  async listEnrollments(principal: AuthPrincipal, studentId: string, query: ListEnrollmentsQueryDto): Promise<Page<EnrollmentDto>> {
    const { schoolId } = await this.viewers.staff(principal);
    await this.requireStudent(schoolId, studentId);
    const page = idPage(query);
    return toPage(await this.students.findEnrollmentsPage(schoolId, studentId, page), page.take, byId, toEnrollmentView);
  }

  async getEnrollment(principal: AuthPrincipal, studentId: string, id: string): Promise<EnrollmentDto> {
    const { schoolId } = await this.viewers.staff(principal);
    return toEnrollmentView(await this.requireEnrollment(schoolId, studentId, id));
  }

  async enroll(principal: AuthPrincipal, studentId: string, input: CreateEnrollmentDto): Promise<EnrollmentDto> {
    const { schoolId } = await this.viewers.staff(principal);
    await this.requireStudent(schoolId, studentId);
    const enrollment = await write(
      () =>
        this.outbox.write(
          schoolId,
          principal,
          (tx) =>
            this.students.insertEnrollment(
              schoolId,
              { studentId, courseId: input.course_id, progressPercent: input.progress_percent, ...completion(input.progress_percent) },
              tx,
            ),
          (row) => [{ type: 'enrollment.created', subject: { type: 'enrollment', id: row.id }, data: toEnrollmentView(row) }],
        ),
      {
        notFound: 'student',
        conflict: 'The student is already enrolled in this course',
        // The student was just checked: the composite key refuses a course of another school.
        reference: new InvalidRequestError('course_id: no such course in this school'),
      },
    );
    return toEnrollmentView(enrollment);
  }

  async updateEnrollment(principal: AuthPrincipal, studentId: string, id: string, input: UpdateEnrollmentDto): Promise<EnrollmentDto> {
    const { schoolId } = await this.viewers.staff(principal);
    await this.requireEnrollment(schoolId, studentId, id);
    const enrollment = await write(
      () => this.students.updateEnrollment(schoolId, id, { progressPercent: input.progress_percent, ...completion(input.progress_percent) }),
      { notFound: 'enrollment' },
    );
    return toEnrollmentView(enrollment);
  }

  async unenroll(principal: AuthPrincipal, studentId: string, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await this.requireEnrollment(schoolId, studentId, id);
    await write(() => this.students.deleteEnrollment(schoolId, id), { notFound: 'enrollment' });
  }

  private async requireStudent(schoolId: string, id: string): Promise<StudentRow> {
    const student = await this.students.findStudent(schoolId, id);
    if (!student) throw notFound('student');
    return student;
  }

  private async requireEnrollment(schoolId: string, studentId: string, id: string): Promise<EnrollmentRow> {
    const enrollment = await this.students.findEnrollment(schoolId, studentId, id);
    if (!enrollment) throw notFound('enrollment');
    return enrollment;
  }
}

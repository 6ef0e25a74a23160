import { Injectable } from '@nestjs/common';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Db } from '../outbox/event-outbox';
import type { Enrollment, Prisma, Student } from '../generated/prisma/client';

export type StudentRow = Student & { _count: { enrollments: number } };
export type EnrollmentRow = Enrollment & { course: { title: string } };

const WITH_COUNT = { _count: { select: { enrollments: true } } } as const;
const WITH_COURSE = { course: { select: { title: true } } } as const;

@Injectable()
export class StudentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findStudentsPage(schoolId: string, filter: { email?: string; courseId?: string }, page: IdPage): Promise<StudentRow[]> {
    return this.prisma.student.findMany({
      where: {
        schoolId,
        ...(filter.email !== undefined ? { email: filter.email.toLowerCase() } : {}),
        ...(filter.courseId !== undefined ? { enrollments: { some: { courseId: filter.courseId } } } : {}),
        ...afterId(page),
      },
      include: WITH_COUNT,
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findStudent(schoolId: string, id: string): Promise<StudentRow | null> {
    return this.prisma.student.findUnique({ where: { schoolId_id: { schoolId, id } }, include: WITH_COUNT });
  }

  insertStudent(schoolId: string, data: { name: string; email: string }, db: Db = this.prisma): Promise<StudentRow> {
    return db.student.create({ data: { ...data, schoolId }, include: WITH_COUNT });
  }

  updateStudent(schoolId: string, id: string, data: Prisma.StudentUncheckedUpdateInput): Promise<StudentRow> {
    return this.prisma.student.update({ where: { schoolId_id: { schoolId, id } }, data, include: WITH_COUNT });
  }

  async deleteStudent(schoolId: string, id: string): Promise<void> {
    await this.prisma.student.delete({ where: { schoolId_id: { schoolId, id } } });
  }

  findEnrollmentsPage(schoolId: string, studentId: string, page: IdPage): Promise<EnrollmentRow[]> {
    return this.prisma.enrollment.findMany({
      where: { schoolId, studentId, ...afterId(page) },
      include: WITH_COURSE,
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findEnrollment(schoolId: string, studentId: string, id: string): Promise<EnrollmentRow | null> {
    return this.prisma.enrollment.findFirst({ where: { schoolId, studentId, id }, include: WITH_COURSE });
  }

  /** The composite foreign keys refuse a course or student of another school (P2003). */
  insertEnrollment(
    schoolId: string,
    data: { studentId: string; courseId: string; progressPercent?: number; completedAt?: Date | null },
    db: Db = this.prisma,
  ): Promise<EnrollmentRow> {
    return db.enrollment.create({ data: { ...data, schoolId }, include: WITH_COURSE });
  }

  updateEnrollment(schoolId: string, id: string, data: Prisma.EnrollmentUncheckedUpdateInput): Promise<EnrollmentRow> {
    return this.prisma.enrollment.update({ where: { schoolId_id: { schoolId, id } }, data, include: WITH_COURSE });
  }

  async deleteEnrollment(schoolId: string, id: string): Promise<void> {
    await this.prisma.enrollment.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}

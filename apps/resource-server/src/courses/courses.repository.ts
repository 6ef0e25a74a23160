import { Injectable } from '@nestjs/common';
import { type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Db } from '../outbox/event-outbox';
import type { Course, Prisma } from '../generated/prisma/client';
import type { CourseDto } from './courses.dto';

export interface CourseFilter {
  publishedOnly: boolean;
  slug?: string;
  lecturerId?: string;
  published?: boolean;
}

/**
 * The columns of a course under their JSON names, in the JSON's order (CourseView). Dates are
 * RFC 3339 in UTC, formatted by PostgreSQL: the timestamp(3) columns hold UTC, as Prisma writes
 * them, and the format is Date.toISOString()'s. tools/bench/floor-server.mjs runs the same
 * statement for the anonymous first page.
 */
const UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const SELECT_COURSE_VIEW =
  'SELECT id, title, slug, summary, description, level, price_cents, currency, lecturer_id, published, ' +
  `to_char(published_at, ${UTC}) AS published_at, to_char(created_at, ${UTC}) AS created_at, ` +
  `to_char(updated_at, ${UTC}) AS updated_at FROM courses`;

@Injectable()
export class CoursesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One page of courses in id order, already in the API's shape: one SQL statement on the
   * pool Prisma uses (this is the hottest read of the API; Prisma's query planning cost more
   * than the statement). The WHERE clause is the one Prisma wrote for the same filter.
   */
  findCoursesPage(schoolId: string, filter: CourseFilter, page: IdPage): Promise<CourseDto[]> {
    const values: unknown[] = [schoolId];
    const param = (value: unknown): string => `$${values.push(value)}`;
    const conditions = [
      filter.publishedOnly ? 'published' : undefined,
      filter.published !== undefined ? `published = ${param(filter.published)}` : undefined,
      filter.slug !== undefined ? `slug = ${param(filter.slug)}` : undefined,
      filter.lecturerId !== undefined ? `lecturer_id = ${param(filter.lecturerId)}` : undefined,
      page.afterId !== undefined ? `id > ${param(page.afterId)}` : undefined,
    ];
    let where = 'school_id = $1';
    // The text follows from which conditions are present: its name says which (a bit each).
    let shape = 0;
    conditions.forEach((condition, bit) => {
      if (condition === undefined) return;
      where += ` AND ${condition}`;
      shape |= 1 << bit;
    });
    const text = `${SELECT_COURSE_VIEW} WHERE ${where} ORDER BY id LIMIT ${param(page.take + 1)}`;
    return this.prisma.rows<CourseDto>(`courses_page_${shape}`, text, values);
  }

  findCourse(schoolId: string, id: string, publishedOnly: boolean): Promise<Course | null> {
    return this.prisma.course.findFirst({ where: { schoolId, id, ...(publishedOnly ? { published: true } : {}) } });
  }

  async lecturerExists(schoolId: string, lecturerId: string): Promise<boolean> {
    return (await this.prisma.lecturer.count({ where: { schoolId, id: lecturerId } })) > 0;
  }

  async findSchoolCurrency(schoolId: string): Promise<string> {
    const school = await this.prisma.school.findUniqueOrThrow({ where: { id: schoolId }, select: { currency: true } });
    return school.currency;
  }

  insertCourse(schoolId: string, data: Omit<Prisma.CourseUncheckedCreateInput, 'schoolId'>, db: Db = this.prisma): Promise<Course> {
    return db.course.create({ data: { ...data, schoolId } });
  }

  updateCourse(schoolId: string, id: string, data: Prisma.CourseUncheckedUpdateInput, db: Db = this.prisma): Promise<Course> {
    return db.course.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deleteCourse(schoolId: string, id: string): Promise<void> {
    await this.prisma.course.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}

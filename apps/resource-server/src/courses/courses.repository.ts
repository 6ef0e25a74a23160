import { Injectable } from '@nestjs/common';
import { flagFilter } from '../common/fields';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Course, Prisma } from '../generated/prisma/client';

export interface CourseFilter {
  publishedOnly: boolean;
  slug?: string;
  lecturerId?: string;
  published?: boolean;
}

@Injectable()
export class CoursesRepository {
  constructor(private readonly prisma: PrismaService) {}

  findCoursesPage(schoolId: string, filter: CourseFilter, page: IdPage): Promise<Course[]> {
    return this.prisma.course.findMany({
      where: {
        schoolId,
        ...flagFilter('published', filter.publishedOnly, filter.published),
        ...(filter.slug !== undefined ? { slug: filter.slug } : {}),
        ...(filter.lecturerId !== undefined ? { lecturerId: filter.lecturerId } : {}),
        ...afterId(page),
      },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
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

  insertCourse(schoolId: string, data: Omit<Prisma.CourseUncheckedCreateInput, 'schoolId'>): Promise<Course> {
    return this.prisma.course.create({ data: { ...data, schoolId } });
  }

  updateCourse(schoolId: string, id: string, data: Prisma.CourseUncheckedUpdateInput): Promise<Course> {
    return this.prisma.course.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deleteCourse(schoolId: string, id: string): Promise<void> {
    await this.prisma.course.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}

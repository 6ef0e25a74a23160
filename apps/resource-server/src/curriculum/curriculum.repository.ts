import { Injectable } from '@nestjs/common';
import { afterPosition, type PositionPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Lesson, Prisma, Section } from '../generated/prisma/client';

export type OutlineRow = Pick<Section, 'id' | 'title' | 'position'> & {
  lessons: Pick<Lesson, 'id' | 'title' | 'kind' | 'durationMinutes' | 'position'>[];
};

/** Lessons without their content: what the public outline may show. */
const LESSON_OUTLINE = { id: true, title: true, kind: true, durationMinutes: true, position: true } as const;
const BY_POSITION = [{ position: 'asc' }, { id: 'asc' }] as const satisfies Prisma.SectionOrderByWithRelationInput[];

@Injectable()
export class CurriculumRepository {
  constructor(private readonly prisma: PrismaService) {}

  findCourseVisibility(schoolId: string, courseId: string): Promise<{ published: boolean } | null> {
    return this.prisma.course.findUnique({ where: { schoolId_id: { schoolId, id: courseId } }, select: { published: true } });
  }

  findOutline(schoolId: string, courseId: string): Promise<OutlineRow[]> {
    return this.prisma.section.findMany({
      where: { schoolId, courseId },
      orderBy: BY_POSITION,
      select: { id: true, title: true, position: true, lessons: { select: LESSON_OUTLINE, orderBy: BY_POSITION } },
    });
  }

  findSectionsPage(schoolId: string, courseId: string, page: PositionPage): Promise<Section[]> {
    return this.prisma.section.findMany({
      where: { schoolId, courseId, ...afterPosition(page) },
      orderBy: BY_POSITION,
      take: page.take + 1,
    });
  }

  findSection(schoolId: string, courseId: string, id: string): Promise<Section | null> {
    return this.prisma.section.findFirst({ where: { schoolId, courseId, id } });
  }

  async findNextSectionPosition(schoolId: string, courseId: string): Promise<number> {
    const { _max } = await this.prisma.section.aggregate({ where: { schoolId, courseId }, _max: { position: true } });
    return (_max.position ?? -1) + 1;
  }

  insertSection(schoolId: string, courseId: string, data: { title: string; position: number }): Promise<Section> {
    return this.prisma.section.create({ data: { ...data, schoolId, courseId } });
  }

  updateSection(schoolId: string, id: string, data: Prisma.SectionUncheckedUpdateInput): Promise<Section> {
    return this.prisma.section.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deleteSection(schoolId: string, id: string): Promise<void> {
    await this.prisma.section.delete({ where: { schoolId_id: { schoolId, id } } });
  }

  findLessonsPage(schoolId: string, sectionId: string, page: PositionPage): Promise<Lesson[]> {
    return this.prisma.lesson.findMany({
      where: { schoolId, sectionId, ...afterPosition(page) },
      orderBy: BY_POSITION,
      take: page.take + 1,
    });
  }

  findLesson(schoolId: string, courseId: string, id: string): Promise<Lesson | null> {
    return this.prisma.lesson.findFirst({ where: { schoolId, courseId, id } });
  }

  async findNextLessonPosition(schoolId: string, sectionId: string): Promise<number> {
    const { _max } = await this.prisma.lesson.aggregate({ where: { schoolId, sectionId }, _max: { position: true } });
    return (_max.position ?? -1) + 1;
  }

  insertLesson(schoolId: string, data: Omit<Prisma.LessonUncheckedCreateInput, 'schoolId'>): Promise<Lesson> {
    return this.prisma.lesson.create({ data: { ...data, schoolId } });
  }

  updateLesson(schoolId: string, id: string, data: Prisma.LessonUncheckedUpdateInput): Promise<Lesson> {
    return this.prisma.lesson.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deleteLesson(schoolId: string, id: string): Promise<void> {
    await this.prisma.lesson.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}

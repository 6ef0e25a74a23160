import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError } from '@platform/oauth-errors';
import { notFound, write } from '../common/errors';
import { iso } from '../common/fields';
import { byPosition, type Page, positionPage, toPage } from '../common/pagination';
import type { Lesson, Section } from '../generated/prisma/client';
import { isStaff, type SchoolQueryDto, type Viewer } from '../tenancy/viewer';
import { ViewerService } from '../tenancy/viewer.service';
import type {
  CreateLessonDto,
  CreateSectionDto,
  CurriculumDto,
  LessonDto,
  ListCurriculumQueryDto,
  SectionDto,
  UpdateLessonDto,
  UpdateSectionDto,
} from './curriculum.dto';
import { CurriculumRepository, type OutlineRow } from './curriculum.repository';

type LessonKind = LessonDto['kind'];

export function toSectionView(section: Section): SectionDto {
  return {
    id: section.id,
    course_id: section.courseId,
    title: section.title,
    position: section.position,
    created_at: iso(section.createdAt),
    updated_at: iso(section.updatedAt),
  };
}

/** The public view of a lesson is its place in the outline: no content. */
export function toLessonView(lesson: Lesson, withContent: boolean): LessonDto {
  return {
    id: lesson.id,
    course_id: lesson.courseId,
    section_id: lesson.sectionId,
    title: lesson.title,
    kind: lesson.kind as LessonKind,
    duration_minutes: lesson.durationMinutes,
    position: lesson.position,
    ...(withContent ? { content: lesson.content } : {}),
    created_at: iso(lesson.createdAt),
    updated_at: iso(lesson.updatedAt),
  };
}

export function toCurriculumView(courseId: string, sections: OutlineRow[]): CurriculumDto {
  const lessons = sections.flatMap((section) => section.lessons);
  return {
    course_id: courseId,
    section_count: sections.length,
    lesson_count: lessons.length,
    total_duration_minutes: lessons.reduce((sum, lesson) => sum + (lesson.durationMinutes ?? 0), 0),
    sections: sections.map((section) => ({
      id: section.id,
      title: section.title,
      position: section.position,
      lessons: section.lessons.map((lesson) => ({
        id: lesson.id,
        title: lesson.title,
        kind: lesson.kind as LessonKind,
        duration_minutes: lesson.durationMinutes,
        position: lesson.position,
      })),
    })),
  };
}

/**
 * Sections and lessons of a course. Anonymous callers see the outline of published courses
 * (titles, kinds, durations); lesson content needs a token with curriculum:read.
 */
@Injectable()
export class CurriculumService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly curriculum: CurriculumRepository,
  ) {}

  async outline(principal: AuthPrincipal, courseId: string, query: SchoolQueryDto): Promise<CurriculumDto> {
    const viewer = await this.viewers.resolve(principal, query.school);
    await this.requireVisibleCourse(viewer, courseId);
    return toCurriculumView(courseId, await this.curriculum.findOutline(viewer.schoolId, courseId));
  }

  async listSections(principal: AuthPrincipal, courseId: string, query: ListCurriculumQueryDto): Promise<Page<SectionDto>> {
    const viewer = await this.viewers.resolve(principal, query.school);
    await this.requireVisibleCourse(viewer, courseId);
    const page = positionPage(query);
    return toPage(await this.curriculum.findSectionsPage(viewer.schoolId, courseId, page), page.take, byPosition, toSectionView);
  }

  async getSection(principal: AuthPrincipal, courseId: string, id: string, query: SchoolQueryDto): Promise<SectionDto> {
    const viewer = await this.viewers.resolve(principal, query.school);
    await this.requireVisibleCourse(viewer, courseId);
    return toSectionView(await this.requireSection(viewer.schoolId, courseId, id));
  }

  async createSection(principal: AuthPrincipal, courseId: string, input: CreateSectionDto): Promise<SectionDto> {
    const viewer = await this.viewers.staff(principal);
    await this.requireVisibleCourse(viewer, courseId);
    const position = input.position ?? (await this.curriculum.findNextSectionPosition(viewer.schoolId, courseId));
    return toSectionView(await this.curriculum.insertSection(viewer.schoolId, courseId, { title: input.title, position }));
  }

  async updateSection(principal: AuthPrincipal, courseId: string, id: string, input: UpdateSectionDto): Promise<SectionDto> {
    const { schoolId } = await this.viewers.staff(principal);
    await this.requireSection(schoolId, courseId, id);
    const section = await write(() => this.curriculum.updateSection(schoolId, id, { title: input.title, position: input.position }), {
      notFound: 'section',
    });
    return toSectionView(section);
  }

  /** Its lessons go with it. */
  async removeSection(principal: AuthPrincipal, courseId: string, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await this.requireSection(schoolId, courseId, id);
    await write(() => this.curriculum.deleteSection(schoolId, id), { notFound: 'section' });
  }

  async listLessons(
    principal: AuthPrincipal,
    courseId: string,
    sectionId: string,
    query: ListCurriculumQueryDto,
  ): Promise<Page<LessonDto>> {
    const viewer = await this.viewers.resolve(principal, query.school);
    await this.requireVisibleCourse(viewer, courseId);
    await this.requireSection(viewer.schoolId, courseId, sectionId);
    const page = positionPage(query);
    const rows = await this.curriculum.findLessonsPage(viewer.schoolId, sectionId, page);
    return toPage(rows, page.take, byPosition, (lesson) => toLessonView(lesson, isStaff(viewer)));
  }

  async getLesson(principal: AuthPrincipal, courseId: string, id: string, query: SchoolQueryDto): Promise<LessonDto> {
    const viewer = await this.viewers.resolve(principal, query.school);
    await this.requireVisibleCourse(viewer, courseId);
    const lesson = await this.curriculum.findLesson(viewer.schoolId, courseId, id);
    if (!lesson) throw notFound('lesson');
    return toLessonView(lesson, isStaff(viewer));
  }

  async createLesson(principal: AuthPrincipal, courseId: string, sectionId: string, input: CreateLessonDto): Promise<LessonDto> {
    const { schoolId } = await this.viewers.staff(principal);
    await this.requireSection(schoolId, courseId, sectionId);
    const position = input.position ?? (await this.curriculum.findNextLessonPosition(schoolId, sectionId));
    const lesson = await this.curriculum.insertLesson(schoolId, {
      courseId,
      sectionId,
      title: input.title,
      kind: input.kind,
      content: input.content,
      durationMinutes: input.duration_minutes,
      position,
    });
    return toLessonView(lesson, true);
  }

  async updateLesson(principal: AuthPrincipal, courseId: string, id: string, input: UpdateLessonDto): Promise<LessonDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const current = await this.curriculum.findLesson(schoolId, courseId, id);
    if (!current) throw notFound('lesson');
    if (input.section_id !== undefined && !(await this.curriculum.findSection(schoolId, courseId, input.section_id))) {
      throw new InvalidRequestError('section_id: no such section in this course');
    }
    const lesson = await write(
      () =>
        this.curriculum.updateLesson(schoolId, id, {
          sectionId: input.section_id,
          title: input.title,
          kind: input.kind,
          content: input.content,
          durationMinutes: input.duration_minutes,
          position: input.position,
        }),
      { notFound: 'lesson' },
    );
    return toLessonView(lesson, true);
  }

  async removeLesson(principal: AuthPrincipal, courseId: string, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    if (!(await this.curriculum.findLesson(schoolId, courseId, id))) throw notFound('lesson');
    await write(() => this.curriculum.deleteLesson(schoolId, id), { notFound: 'lesson' });
  }

  /** The course exists in the viewer's school and, for the public, is published. */
  private async requireVisibleCourse(viewer: Viewer, courseId: string): Promise<void> {
    const course = await this.curriculum.findCourseVisibility(viewer.schoolId, courseId);
    if (!course || (!isStaff(viewer) && !course.published)) throw notFound('course');
  }

  private async requireSection(schoolId: string, courseId: string, id: string): Promise<Section> {
    const section = await this.curriculum.findSection(schoolId, courseId, id);
    if (!section) throw notFound('section');
    return section;
  }
}

import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError } from '@platform/oauth-errors';
import { notFound, write } from '../common/errors';
import { iso, isoOrNull, publication, slugify } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { Course } from '../generated/prisma/client';
import { isStaff, type SchoolQueryDto } from '../tenancy/viewer';
import { type BusinessChange } from '../outbox/business-event';
import { EventOutbox } from '../outbox/event-outbox';
import { ViewerService } from '../tenancy/viewer.service';
import type { CourseDto, CreateCourseDto, ListCoursesQueryDto, UpdateCourseDto } from './courses.dto';
import { CoursesRepository } from './courses.repository';

export function toCourseView(course: Course): CourseDto {
  return {
    id: course.id,
    title: course.title,
    slug: course.slug,
    summary: course.summary,
    description: course.description,
    level: course.level as CourseDto['level'],
    price_cents: course.priceCents,
    currency: course.currency,
    lecturer_id: course.lecturerId,
    published: course.published,
    published_at: isoOrNull(course.publishedAt),
    created_at: iso(course.createdAt),
    updated_at: iso(course.updatedAt),
  };
}

const asIs = (course: CourseDto): CourseDto => course;

/** `course.published` when a change publishes a course that was not (created published, or a draft published). */
function publishedNow(course: Course): BusinessChange[] {
  return course.published ? [{ type: 'course.published', subject: { type: 'course', id: course.id }, data: toCourseView(course) }] : [];
}

const SLUG_TAKEN = 'A course with this slug already exists in the school';

@Injectable()
export class CoursesService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly courses: CoursesRepository,
    private readonly outbox: EventOutbox,
  ) {}

  /** Anonymous callers see the published courses; tokens see every course of their school. */
  async list(principal: AuthPrincipal, query: ListCoursesQueryDto): Promise<Page<CourseDto>> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const page = idPage(query);
    const rows = await this.courses.findCoursesPage(
      viewer.schoolId,
      { publishedOnly: !isStaff(viewer), slug: query.slug, lecturerId: query.lecturer_id, published: query.published },
      page,
    );
    return toPage(rows, page.take, byId, asIs);
  }

  async get(principal: AuthPrincipal, id: string, query: SchoolQueryDto): Promise<CourseDto> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const course = await this.courses.findCourse(viewer.schoolId, id, !isStaff(viewer));
    if (!course) throw notFound('course');
    return toCourseView(course);
  }

  async create(principal: AuthPrincipal, input: CreateCourseDto): Promise<CourseDto> {
    const { schoolId } = await this.viewers.staff(principal);
    if (input.lecturer_id) await this.checkLecturer(schoolId, input.lecturer_id);
    const data = {
      ...this.toData(input, null),
      title: input.title,
      slug: input.slug ?? slugify(input.title),
      priceCents: input.price_cents,
      currency: input.currency ?? (await this.courses.findSchoolCurrency(schoolId)),
    };
    // Only a change that may publish pays for the transaction with its event.
    const insert = () =>
      input.published
        ? this.outbox.write(schoolId, principal, (tx) => this.courses.insertCourse(schoolId, data, tx), publishedNow)
        : this.courses.insertCourse(schoolId, data);
    const course = await write(insert, { notFound: 'school', conflict: SLUG_TAKEN });
    return toCourseView(course);
  }

  async update(principal: AuthPrincipal, id: string, input: UpdateCourseDto): Promise<CourseDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const current = await this.courses.findCourse(schoolId, id, false);
    if (!current) throw notFound('course');
    if (input.lecturer_id) await this.checkLecturer(schoolId, input.lecturer_id);
    const data = this.toData(input, current.publishedAt);
    const update = () =>
      input.published && !current.published
        ? this.outbox.write(schoolId, principal, (tx) => this.courses.updateCourse(schoolId, id, data, tx), publishedNow)
        : this.courses.updateCourse(schoolId, id, data);
    const course = await write(update, {
      notFound: 'course',
      conflict: SLUG_TAKEN,
    });
    return toCourseView(course);
  }

  /** Deleting a course deletes its curriculum and enrollments; past orders keep their items. */
  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await write(() => this.courses.deleteCourse(schoolId, id), { notFound: 'course' });
  }

  private toData(input: UpdateCourseDto, publishedAt: Date | null) {
    return {
      title: input.title,
      slug: input.slug,
      summary: input.summary,
      description: input.description,
      level: input.level,
      priceCents: input.price_cents,
      currency: input.currency,
      lecturerId: input.lecturer_id,
      published: input.published,
      ...publication(input.published, publishedAt),
    };
  }

  /** The optional link to a lecturer is a plain foreign key: check the school here. */
  private async checkLecturer(schoolId: string, lecturerId: string): Promise<void> {
    if (!(await this.courses.lecturerExists(schoolId, lecturerId))) {
      throw new InvalidRequestError('lecturer_id: no such lecturer in this school');
    }
  }
}

import { Injectable } from '@nestjs/common';
import { iso, isoOrNull } from '../common/fields';
import { afterId, byId, idPage, positionPage, toPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Course, Prisma } from '../generated/prisma/client';
import type {
  CatalogPage,
  CatalogReader,
  PageRequest,
  PublicCourse,
  PublicCourseDetail,
  PublicDigitalProduct,
  PublicEvent,
  PublicLecturer,
  PublicMembershipPlan,
  PublicSchoolProfile,
} from './catalog-reader';

/**
 * The catalog reads on the resource server's database. The filters are the API's public
 * view: courses `published`, lesson content never (the outline is titles), events `isPublic`
 * (and upcoming: not started, as `?upcoming=true`),
 * membership plans `active`, digital products `published`, lecturers all. Lists page like
 * the API's (keyset on id, the same opaque cursors); events page on (starts_at, id).
 */
@Injectable()
export class PrismaCatalogReader implements CatalogReader {
  constructor(private readonly prisma: PrismaService) {}

  async listCourses(schoolId: string, request: PageRequest): Promise<CatalogPage<PublicCourse> | null> {
    const page = idPage(request);
    const rows = await this.prisma.course.findMany({
      where: { schoolId, published: true, ...afterId(page) },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
    return this.orNoSchool(schoolId, toPage(rows, page.take, byId, toPublicCourse));
  }

  async searchCourses(schoolId: string, text: string, request: PageRequest): Promise<CatalogPage<PublicCourse> | null> {
    const page = idPage(request);
    // Prisma passes `contains` into ILIKE unescaped: `%` and `_` would be wildcards.
    const contains = { contains: text.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' } as const;
    const rows = await this.prisma.course.findMany({
      where: {
        schoolId,
        published: true,
        OR: [{ title: contains }, { summary: contains }, { description: contains }],
        ...afterId(page),
      },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
    return this.orNoSchool(schoolId, toPage(rows, page.take, byId, toPublicCourse));
  }

  async getCourse(schoolId: string, courseId: string): Promise<PublicCourseDetail | null> {
    const byPosition = [{ position: 'asc' }, { id: 'asc' }] as const satisfies Prisma.SectionOrderByWithRelationInput[];
    const course = await this.prisma.course.findFirst({
      where: { schoolId, id: courseId, published: true },
      include: {
        lecturer: { select: { id: true, name: true, headline: true } },
        sections: {
          orderBy: byPosition,
          select: {
            id: true,
            title: true,
            // Lesson content is staff only: the outline selects titles, kinds and durations.
            lessons: { orderBy: byPosition, select: { id: true, title: true, kind: true, durationMinutes: true } },
          },
        },
      },
    });
    if (!course) return null;
    return {
      ...toPublicCourse(course),
      description: course.description,
      lecturer: course.lecturer,
      outline: course.sections.map((section) => ({
        id: section.id,
        title: section.title,
        lessons: section.lessons.map((lesson) => ({
          id: lesson.id,
          title: lesson.title,
          kind: lesson.kind,
          duration_minutes: lesson.durationMinutes,
        })),
      })),
    };
  }

  async listLecturers(schoolId: string, request: PageRequest): Promise<CatalogPage<PublicLecturer> | null> {
    const page = idPage(request);
    const rows = await this.prisma.lecturer.findMany({ where: { schoolId, ...afterId(page) }, orderBy: { id: 'asc' }, take: page.take + 1 });
    return this.orNoSchool(
      schoolId,
      toPage(rows, page.take, byId, (lecturer) => ({
        id: lecturer.id,
        name: lecturer.name,
        headline: lecturer.headline,
        bio: lecturer.bio,
        avatar_url: lecturer.avatarUrl,
        website_url: lecturer.websiteUrl,
      })),
    );
  }

  async listEvents(schoolId: string, request: PageRequest, now: Date): Promise<CatalogPage<PublicEvent> | null> {
    // The API's (position, id) cursor, with starts_at in epoch milliseconds as the position.
    const page = positionPage(request);
    const after = page.after && { startsAt: new Date(page.after.position), id: page.after.id };
    const rows = await this.prisma.event.findMany({
      where: {
        schoolId,
        isPublic: true,
        // Upcoming as the API's `?upcoming=true` means it: not started yet.
        startsAt: { gte: now },
        ...(after ? { OR: [{ startsAt: { gt: after.startsAt } }, { startsAt: after.startsAt, id: { gt: after.id } }] } : {}),
      },
      orderBy: [{ startsAt: 'asc' }, { id: 'asc' }],
      take: page.take + 1,
    });
    return this.orNoSchool(
      schoolId,
      toPage(
        rows,
        page.take,
        (event) => [event.startsAt.getTime(), event.id],
        (event) => ({
          id: event.id,
          title: event.title,
          description: event.description,
          location: event.location,
          online_url: event.onlineUrl,
          starts_at: iso(event.startsAt),
          ends_at: isoOrNull(event.endsAt),
          capacity: event.capacity,
        }),
      ),
    );
  }

  async listMembershipPlans(schoolId: string, request: PageRequest): Promise<CatalogPage<PublicMembershipPlan> | null> {
    const page = idPage(request);
    const rows = await this.prisma.membershipPlan.findMany({
      where: { schoolId, active: true, ...afterId(page) },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
    return this.orNoSchool(
      schoolId,
      toPage(rows, page.take, byId, (plan) => ({
        id: plan.id,
        name: plan.name,
        description: plan.description,
        price_cents: plan.priceCents,
        currency: plan.currency,
        interval: plan.interval,
        features: plan.features,
      })),
    );
  }

  async listDigitalProducts(schoolId: string, request: PageRequest): Promise<CatalogPage<PublicDigitalProduct> | null> {
    const page = idPage(request);
    const rows = await this.prisma.digitalProduct.findMany({
      where: { schoolId, published: true, ...afterId(page) },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
    return this.orNoSchool(
      schoolId,
      // The deliverable (fileId) is for buyers: never listed.
      toPage(rows, page.take, byId, (product) => ({
        id: product.id,
        title: product.title,
        description: product.description,
        price_cents: product.priceCents,
        currency: product.currency,
        kind: product.kind,
      })),
    );
  }

  async getSchoolProfile(schoolId: string): Promise<PublicSchoolProfile | null> {
    // Settings are staff only: the profile selects its public fields.
    const school = await this.prisma.school.findUnique({
      where: { id: schoolId },
      select: {
        id: true,
        name: true,
        slug: true,
        description: true,
        websiteUrl: true,
        contactEmail: true,
        currency: true,
        locale: true,
        timezone: true,
      },
    });
    if (!school) return null;
    return {
      id: school.id,
      name: school.name,
      slug: school.slug,
      description: school.description,
      website_url: school.websiteUrl,
      contact_email: school.contactEmail,
      currency: school.currency,
      locale: school.locale,
      timezone: school.timezone,
    };
  }

  /** An empty page may mean an unknown school: only then is the school looked up. */
  private async orNoSchool<T>(schoolId: string, page: CatalogPage<T>): Promise<CatalogPage<T> | null> {
    if (page.data.length > 0) return page;
    const school = await this.prisma.school.findUnique({ where: { id: schoolId }, select: { id: true } });
    return school ? page : null;
  }
}

function toPublicCourse(course: Course): PublicCourse {
  return {
    id: course.id,
    title: course.title,
    slug: course.slug,
    summary: course.summary,
    level: course.level,
    price_cents: course.priceCents,
    currency: course.currency,
    lecturer_id: course.lecturerId,
    published_at: isoOrNull(course.publishedAt),
  };
}

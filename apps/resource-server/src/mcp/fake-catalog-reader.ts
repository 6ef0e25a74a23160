import type { CatalogPage, CatalogReader, PageRequest, PublicCourse, PublicCourseDetail } from './catalog-reader';

export const COURSE: PublicCourse = {
  id: 'course-1',
  title: 'Intro to SQL',
  slug: 'intro-to-sql',
  summary: 'Queries from scratch',
  level: 'beginner',
  price_cents: 4900,
  currency: 'USD',
  lecturer_id: 'lecturer-1',
  published_at: '2025-01-02T03:04:05.000Z',
};

export const COURSE_DETAIL: PublicCourseDetail = {
  ...COURSE,
  description: 'A **gentle** start.',
  lecturer: { id: 'lecturer-1', name: 'Ada Lovelace', headline: 'Analyst' },
  outline: [
    {
      id: 'section-1',
      title: 'Getting started',
      lessons: [
        { id: 'lesson-1', title: 'What is a table?', kind: 'video', duration_minutes: 7 },
        { id: 'lesson-2', title: 'Your first SELECT', kind: 'text', duration_minutes: null },
      ],
    },
  ],
};

const page = <T>(data: T[], next: string | null = null): CatalogPage<T> => ({ data, next_cursor: next });

/** A CatalogReader over fixed data, for the MCP unit tests: one school, `demo-school`. */
export class FakeCatalogReader implements CatalogReader {
  readonly calls: { method: string; schoolId: string; args: unknown[] }[] = [];
  failWith?: Error;

  private known(method: string, schoolId: string, ...args: unknown[]): boolean {
    this.calls.push({ method, schoolId, args });
    if (this.failWith) throw this.failWith;
    return schoolId === 'demo-school';
  }

  async listCourses(schoolId: string, request: PageRequest) {
    return this.known('listCourses', schoolId, request) ? page([COURSE], 'next-page') : null;
  }

  async searchCourses(schoolId: string, text: string, request: PageRequest) {
    if (!this.known('searchCourses', schoolId, text, request)) return null;
    return page(COURSE.title.toLowerCase().includes(text.toLowerCase()) ? [COURSE] : []);
  }

  async getCourse(schoolId: string, courseId: string) {
    return this.known('getCourse', schoolId, courseId) && courseId === COURSE.id ? COURSE_DETAIL : null;
  }

  async listLecturers(schoolId: string, request: PageRequest) {
    if (!this.known('listLecturers', schoolId, request)) return null;
    return page([{ id: 'lecturer-1', name: 'Ada Lovelace', headline: 'Analyst', bio: '', avatar_url: null, website_url: null }]);
  }

  async listEvents(schoolId: string, request: PageRequest, now: Date) {
    if (!this.known('listEvents', schoolId, request, now)) return null;
    return page([
      {
        id: 'event-1',
        title: 'Open day',
        description: 'Meet the lecturers',
        location: null,
        online_url: 'https://meet.example.com/open-day',
        starts_at: '2030-05-01T16:00:00.000Z',
        ends_at: null,
        capacity: 100,
      },
    ]);
  }

  async listMembershipPlans(schoolId: string, request: PageRequest) {
    if (!this.known('listMembershipPlans', schoolId, request)) return null;
    return page([
      { id: 'plan-1', name: 'All access', description: '', price_cents: 1900, currency: 'USD', interval: 'month', features: ['Every course'] },
    ]);
  }

  async listDigitalProducts(schoolId: string, request: PageRequest) {
    if (!this.known('listDigitalProducts', schoolId, request)) return null;
    return page([{ id: 'product-1', title: 'SQL cheat sheet', description: '', price_cents: 500, currency: 'USD', kind: 'template' }]);
  }

  async getSchoolProfile(schoolId: string) {
    if (!this.known('getSchoolProfile', schoolId)) return null;
    return {
      id: 'demo-school',
      name: 'Demo Academy',
      slug: 'demo-academy',
      description: 'Courses for curious people',
      website_url: null,
      contact_email: 'hello@academy.test',
      currency: 'USD',
      locale: 'en',
      timezone: 'UTC',
    };
  }
}

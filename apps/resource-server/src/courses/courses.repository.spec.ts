import type { PrismaService } from '../database/prisma.service';
import { type CourseFilter, CoursesRepository } from './courses.repository';

/** Every statement name the course page can send, with its text: pg refuses a second text under one name. */
function statementsOfEveryFilter(): Map<string, Set<string>> {
  const sent = new Map<string, Set<string>>();
  const prisma = {
    rows: async (name: string, text: string) => {
      sent.set(name, (sent.get(name) ?? new Set()).add(text));
      return [];
    },
  } as unknown as PrismaService;
  const repository = new CoursesRepository(prisma);
  for (let mask = 0; mask < 32; mask++) {
    for (const take of [5, 20]) {
      const filter: CourseFilter = {
        publishedOnly: Boolean(mask & 1),
        ...(mask & 2 ? { published: mask % 3 === 0 } : {}),
        ...(mask & 4 ? { slug: `slug-${take}` } : {}),
        ...(mask & 8 ? { lecturerId: `lecturer-${take}` } : {}),
      };
      void repository.findCoursesPage(`school-${take}`, filter, { take, ...(mask & 16 ? { afterId: `course-${take}` } : {}) });
    }
  }
  return sent;
}

describe('CoursesRepository statements', () => {
  it('names each text of the course page once: one name per combination of filters, whatever the values', () => {
    const sent = statementsOfEveryFilter();
    expect(sent.size).toBe(32);
    for (const [name, texts] of sent) {
      expect([name, texts.size]).toEqual([name, 1]);
    }
    const textOf = (name: string) => [...(sent.get(name) ?? [])][0];
    expect(new Set([...sent.keys()].map(textOf)).size).toBe(32);
    expect(textOf('courses_page_0')).toMatch(/WHERE school_id = \$1 ORDER BY id LIMIT \$2$/);
    expect(textOf('courses_page_31')).toMatch(
      /WHERE school_id = \$1 AND published AND published = \$2 AND slug = \$3 AND lecturer_id = \$4 AND id > \$5 ORDER BY id LIMIT \$6$/,
    );
  });
});

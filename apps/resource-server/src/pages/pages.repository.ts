import { Injectable } from '@nestjs/common';
import { flagFilter } from '../common/fields';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Page, Prisma } from '../generated/prisma/client';

export interface PageFilter {
  publishedOnly: boolean;
  slug?: string;
  published?: boolean;
}

@Injectable()
export class PagesRepository {
  constructor(private readonly prisma: PrismaService) {}

  findPagesPage(schoolId: string, filter: PageFilter, page: IdPage): Promise<Page[]> {
    return this.prisma.page.findMany({
      where: {
        schoolId,
        ...flagFilter('published', filter.publishedOnly, filter.published),
        ...(filter.slug !== undefined ? { slug: filter.slug } : {}),
        ...afterId(page),
      },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findPage(schoolId: string, id: string, publishedOnly: boolean): Promise<Page | null> {
    return this.prisma.page.findFirst({ where: { schoolId, id, ...(publishedOnly ? { published: true } : {}) } });
  }

  insertPage(schoolId: string, data: Omit<Prisma.PageUncheckedCreateInput, 'schoolId'>): Promise<Page> {
    return this.prisma.page.create({ data: { ...data, schoolId } });
  }

  updatePage(schoolId: string, id: string, data: Prisma.PageUncheckedUpdateInput): Promise<Page> {
    return this.prisma.page.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deletePage(schoolId: string, id: string): Promise<void> {
    await this.prisma.page.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}

import { Injectable } from '@nestjs/common';
import { flagFilter } from '../common/fields';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Db } from '../outbox/event-outbox';
import type { Post, Prisma } from '../generated/prisma/client';

export interface PostFilter {
  publishedOnly: boolean;
  slug?: string;
  published?: boolean;
}

@Injectable()
export class PostsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findPostsPage(schoolId: string, filter: PostFilter, page: IdPage): Promise<Post[]> {
    return this.prisma.post.findMany({
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

  findPost(schoolId: string, id: string, publishedOnly: boolean): Promise<Post | null> {
    return this.prisma.post.findFirst({ where: { schoolId, id, ...(publishedOnly ? { published: true } : {}) } });
  }

  insertPost(schoolId: string, data: Omit<Prisma.PostUncheckedCreateInput, 'schoolId'>, db: Db = this.prisma): Promise<Post> {
    return db.post.create({ data: { ...data, schoolId } });
  }

  updatePost(schoolId: string, id: string, data: Prisma.PostUncheckedUpdateInput, db: Db = this.prisma): Promise<Post> {
    return db.post.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deletePost(schoolId: string, id: string): Promise<void> {
    await this.prisma.post.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}

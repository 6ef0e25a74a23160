import { Injectable } from '@nestjs/common';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Comment } from '../generated/prisma/client';

export interface CommentFilter {
  postId?: string;
  status?: string;
}

@Injectable()
export class CommentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findPostVisibility(schoolId: string, postId: string): Promise<{ published: boolean } | null> {
    return this.prisma.post.findUnique({ where: { schoolId_id: { schoolId, id: postId } }, select: { published: true } });
  }

  findCommentsPage(schoolId: string, filter: CommentFilter, page: IdPage): Promise<Comment[]> {
    return this.prisma.comment.findMany({
      where: {
        schoolId,
        ...(filter.postId !== undefined ? { postId: filter.postId } : {}),
        ...(filter.status !== undefined ? { status: filter.status } : {}),
        ...afterId(page),
      },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findComment(schoolId: string, id: string): Promise<Comment | null> {
    return this.prisma.comment.findUnique({ where: { schoolId_id: { schoolId, id } } });
  }
}

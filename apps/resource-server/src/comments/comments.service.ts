import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { notFound } from '../common/errors';
import { iso } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { Comment } from '../generated/prisma/client';
import { isStaff } from '../tenancy/viewer';
import { ViewerService } from '../tenancy/viewer.service';
import type { CommentDto, ListCommentsQueryDto, ListPostCommentsQueryDto } from './comments.dto';
import { CommentsRepository } from './comments.repository';

export function toCommentView(comment: Comment): CommentDto {
  return {
    id: comment.id,
    post_id: comment.postId,
    author_name: comment.authorName,
    body: comment.body,
    status: comment.status as CommentDto['status'],
    created_at: iso(comment.createdAt),
  };
}

/**
 * Comments are read only through the API. The comments shown under a published post are as
 * public as the post (the visible ones); hidden comments, comments on drafts and the
 * school-wide moderation list need a token with comments:read.
 */
@Injectable()
export class CommentsService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly comments: CommentsRepository,
  ) {}

  async listForPost(principal: AuthPrincipal, postId: string, query: ListPostCommentsQueryDto): Promise<Page<CommentDto>> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const post = await this.comments.findPostVisibility(viewer.schoolId, postId);
    if (!post || (!isStaff(viewer) && !post.published)) throw notFound('post');
    const page = idPage(query);
    const rows = await this.comments.findCommentsPage(
      viewer.schoolId,
      { postId, ...(isStaff(viewer) ? {} : { status: 'visible' }) },
      page,
    );
    return toPage(rows, page.take, byId, toCommentView);
  }

  async list(principal: AuthPrincipal, query: ListCommentsQueryDto): Promise<Page<CommentDto>> {
    const { schoolId } = await this.viewers.staff(principal);
    const page = idPage(query);
    const rows = await this.comments.findCommentsPage(schoolId, { postId: query.post_id, status: query.status }, page);
    return toPage(rows, page.take, byId, toCommentView);
  }

  async get(principal: AuthPrincipal, id: string): Promise<CommentDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const comment = await this.comments.findComment(schoolId, id);
    if (!comment) throw notFound('comment');
    return toCommentView(comment);
  }
}

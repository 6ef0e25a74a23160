import { z } from 'zod';
import { isoOut, ref } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';
import { schoolQuery } from '../tenancy/viewer';

export const COMMENT_STATUSES = ['visible', 'hidden'] as const;

export const CommentView = z.object({
  id: z.string(),
  post_id: z.string(),
  author_name: z.string(),
  body: z.string(),
  status: z.enum(COMMENT_STATUSES).describe('hidden: moderated away, staff only'),
  created_at: isoOut,
});
export class CommentDto extends zodDto(CommentView, 'output') {}

export const ListPostCommentsQuery = pageQuery.extend(schoolQuery.shape);
export class ListPostCommentsQueryDto extends zodDto(ListPostCommentsQuery, 'input') {}

export const ListCommentsQuery = pageQuery.extend({
  post_id: ref.optional().describe('Only comments on this post'),
  status: z.enum(COMMENT_STATUSES).optional().describe('Only comments in this moderation state'),
});
export class ListCommentsQueryDto extends zodDto(ListCommentsQuery, 'input') {}

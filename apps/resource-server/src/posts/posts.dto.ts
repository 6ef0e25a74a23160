import { z } from 'zod';
import { isoOut, longText, name, queryFlag, shortText, slug, title } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';
import { schoolQuery } from '../tenancy/viewer';

export const PostView = z.object({
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  excerpt: z.string(),
  body: z.string().describe('Markdown'),
  author_name: z.string(),
  published: z.boolean(),
  published_at: isoOut.nullable(),
  created_at: isoOut,
  updated_at: isoOut,
});
export class PostDto extends zodDto(PostView, 'output') {}

export const ListPostsQuery = pageQuery.extend({
  ...schoolQuery.shape,
  slug: slug.optional().describe('Only the post with this slug'),
  published: queryFlag.optional().describe('Token callers: filter by published state (anonymous callers only see published posts)'),
});
export class ListPostsQueryDto extends zodDto(ListPostsQuery, 'input') {}

const postFields = {
  title,
  slug: slug.optional().describe('Defaults to one made from the title'),
  excerpt: shortText(1_000).optional(),
  body: longText.optional(),
  author_name: name,
  published: z.boolean().optional(),
};

export const CreatePost = z.strictObject(postFields);
export class CreatePostDto extends zodDto(CreatePost, 'input') {}

export const UpdatePost = z.strictObject(postFields).partial();
export class UpdatePostDto extends zodDto(UpdatePost, 'input') {}

import { z } from 'zod';
import { isoOut, longText, queryFlag, slug, title } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';
import { schoolQuery } from '../tenancy/viewer';

export const PageView = z.object({
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  body: z.string().describe('Markdown'),
  published: z.boolean(),
  published_at: isoOut.nullable(),
  created_at: isoOut,
  updated_at: isoOut,
});
export class PageDto extends zodDto(PageView, 'output') {}

export const ListPagesQuery = pageQuery.extend({
  ...schoolQuery.shape,
  slug: slug.optional().describe('Only the page with this slug'),
  published: queryFlag.optional().describe('Token callers: filter by published state (anonymous callers only see published pages)'),
});
export class ListPagesQueryDto extends zodDto(ListPagesQuery, 'input') {}

const pageFields = {
  title,
  slug: slug.optional().describe('Defaults to one made from the title'),
  body: longText.optional(),
  published: z.boolean().optional(),
};

export const CreatePage = z.strictObject(pageFields);
export class CreatePageDto extends zodDto(CreatePage, 'input') {}

export const UpdatePage = z.strictObject(pageFields).partial();
export class UpdatePageDto extends zodDto(UpdatePage, 'input') {}

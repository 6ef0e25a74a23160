import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { notFound, write } from '../common/errors';
import { iso, isoOrNull, publication, slugify } from '../common/fields';
import { byId, idPage, type Page as ListPage, toPage } from '../common/pagination';
import type { Page } from '../generated/prisma/client';
import { isStaff, type SchoolQueryDto } from '../tenancy/viewer';
import { ViewerService } from '../tenancy/viewer.service';
import type { CreatePageDto, ListPagesQueryDto, PageDto, UpdatePageDto } from './pages.dto';
import { PagesRepository } from './pages.repository';

export function toPageView(page: Page): PageDto {
  return {
    id: page.id,
    title: page.title,
    slug: page.slug,
    body: page.body,
    published: page.published,
    published_at: isoOrNull(page.publishedAt),
    created_at: iso(page.createdAt),
    updated_at: iso(page.updatedAt),
  };
}

function toData(input: UpdatePageDto, publishedAt: Date | null) {
  return { title: input.title, slug: input.slug, body: input.body, published: input.published, ...publication(input.published, publishedAt) };
}

const SLUG_TAKEN = 'A page with this slug already exists in the school';

/** Site pages: anonymous callers see the published ones; tokens see drafts too. */
@Injectable()
export class PagesService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly pages: PagesRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListPagesQueryDto): Promise<ListPage<PageDto>> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const page = idPage(query);
    const rows = await this.pages.findPagesPage(
      viewer.schoolId,
      { publishedOnly: !isStaff(viewer), slug: query.slug, published: query.published },
      page,
    );
    return toPage(rows, page.take, byId, toPageView);
  }

  async get(principal: AuthPrincipal, id: string, query: SchoolQueryDto): Promise<PageDto> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const page = await this.pages.findPage(viewer.schoolId, id, !isStaff(viewer));
    if (!page) throw notFound('page');
    return toPageView(page);
  }

  async create(principal: AuthPrincipal, input: CreatePageDto): Promise<PageDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const data = { ...toData(input, null), title: input.title, slug: input.slug ?? slugify(input.title) };
    return toPageView(await write(() => this.pages.insertPage(schoolId, data), { notFound: 'school', conflict: SLUG_TAKEN }));
  }

  async update(principal: AuthPrincipal, id: string, input: UpdatePageDto): Promise<PageDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const current = await this.pages.findPage(schoolId, id, false);
    if (!current) throw notFound('page');
    const page = await write(() => this.pages.updatePage(schoolId, id, toData(input, current.publishedAt)), {
      notFound: 'page',
      conflict: SLUG_TAKEN,
    });
    return toPageView(page);
  }

  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await write(() => this.pages.deletePage(schoolId, id), { notFound: 'page' });
  }
}

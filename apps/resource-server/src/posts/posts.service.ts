import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { notFound, write } from '../common/errors';
import { iso, isoOrNull, publication, slugify } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { Post } from '../generated/prisma/client';
import { isStaff, type SchoolQueryDto } from '../tenancy/viewer';
import { type BusinessChange } from '../outbox/business-event';
import { EventOutbox } from '../outbox/event-outbox';
import { ViewerService } from '../tenancy/viewer.service';
import type { CreatePostDto, ListPostsQueryDto, PostDto, UpdatePostDto } from './posts.dto';
import { PostsRepository } from './posts.repository';

export function toPostView(post: Post): PostDto {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    body: post.body,
    author_name: post.authorName,
    published: post.published,
    published_at: isoOrNull(post.publishedAt),
    created_at: iso(post.createdAt),
    updated_at: iso(post.updatedAt),
  };
}

function toData(input: UpdatePostDto, publishedAt: Date | null) {
  return {
    title: input.title,
    slug: input.slug,
    excerpt: input.excerpt,
    body: input.body,
    authorName: input.author_name,
    published: input.published,
    ...publication(input.published, publishedAt),
  };
}

const SLUG_TAKEN = 'A post with this slug already exists in the school';

/** `post.published` when a change publishes a post that was not (created published, or a draft published). */
function publishedNow(post: Post): BusinessChange[] {
  return post.published ? [{ type: 'post.published', subject: { type: 'post', id: post.id }, data: toPostView(post) }] : [];
}

/** Anonymous callers see published posts; tokens see drafts too. */
@Injectable()
export class PostsService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly posts: PostsRepository,
    private readonly outbox: EventOutbox,
  ) {}

  async list(principal: AuthPrincipal, query: ListPostsQueryDto): Promise<Page<PostDto>> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const page = idPage(query);
    const rows = await this.posts.findPostsPage(
      viewer.schoolId,
      { publishedOnly: !isStaff(viewer), slug: query.slug, published: query.published },
      page,
    );
    return toPage(rows, page.take, byId, toPostView);
  }

  async get(principal: AuthPrincipal, id: string, query: SchoolQueryDto): Promise<PostDto> {
    const viewer = await this.viewers.resolve(principal, query.school);
    const post = await this.posts.findPost(viewer.schoolId, id, !isStaff(viewer));
    if (!post) throw notFound('post');
    return toPostView(post);
  }

  async create(principal: AuthPrincipal, input: CreatePostDto): Promise<PostDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const data = { ...toData(input, null), title: input.title, authorName: input.author_name, slug: input.slug ?? slugify(input.title) };
    // Only a change that may publish pays for the transaction with its event.
    const insert = () =>
      input.published
        ? this.outbox.write(schoolId, principal, (tx) => this.posts.insertPost(schoolId, data, tx), publishedNow)
        : this.posts.insertPost(schoolId, data);
    return toPostView(await write(insert, { notFound: 'school', conflict: SLUG_TAKEN }));
  }

  async update(principal: AuthPrincipal, id: string, input: UpdatePostDto): Promise<PostDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const current = await this.posts.findPost(schoolId, id, false);
    if (!current) throw notFound('post');
    const data = toData(input, current.publishedAt);
    const update = () =>
      input.published && !current.published
        ? this.outbox.write(schoolId, principal, (tx) => this.posts.updatePost(schoolId, id, data, tx), publishedNow)
        : this.posts.updatePost(schoolId, id, data);
    const post = await write(update, {
      notFound: 'post',
      conflict: SLUG_TAKEN,
    });
    return toPostView(post);
  }

  /** Its comments go with it. */
  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    await write(() => this.posts.deletePost(schoolId, id), { notFound: 'post' });
  }
}

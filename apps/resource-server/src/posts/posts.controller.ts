import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiConflict, ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { schoolQuery, SchoolQueryDto } from '../tenancy/viewer';
import { CreatePost, CreatePostDto, ListPostsQuery, ListPostsQueryDto, PostDto, UpdatePost, UpdatePostDto } from './posts.dto';
import { PostsService } from './posts.service';

@ApiTags('posts')
@Controller(`${API_PREFIX}/posts`)
export class PostsController {
  constructor(private readonly posts: PostsService) {}

  @Get()
  @RequireScopes('posts:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'List blog posts', description: 'Anonymous: the published posts of ?school=. Token: drafts too.' })
  @ApiPageOf(PostDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListPostsQuery)) q: ListPostsQueryDto) {
    return this.posts.list(principal, q);
  }

  @Get(':postId')
  @RequireScopes('posts:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get a blog post', description: 'Anonymous callers get published posts only.' })
  @ApiOkResponse({ type: PostDto })
  @ApiNotFound('post')
  get(@Principal() principal: AuthPrincipal, @Param('postId') id: string, @Query(query(schoolQuery)) q: SchoolQueryDto) {
    return this.posts.get(principal, id, q);
  }

  @Post()
  @RequireScopes('posts:write')
  @ApiOperation({ summary: 'Write a blog post' })
  @ApiCreatedResponse({ type: PostDto })
  @ApiInvalidRequest()
  @ApiConflict('the slug is taken')
  create(@Principal() principal: AuthPrincipal, @Body(body(CreatePost)) input: CreatePostDto) {
    return this.posts.create(principal, input);
  }

  @Patch(':postId')
  @RequireScopes('posts:write')
  @ApiOperation({ summary: 'Edit or (un)publish a blog post' })
  @ApiOkResponse({ type: PostDto })
  @ApiInvalidRequest()
  @ApiNotFound('post')
  @ApiConflict('the slug is taken')
  update(@Principal() principal: AuthPrincipal, @Param('postId') id: string, @Body(body(UpdatePost)) input: UpdatePostDto) {
    return this.posts.update(principal, id, input);
  }

  @Delete(':postId')
  @HttpCode(204)
  @RequireScopes('posts:write')
  @ApiOperation({ summary: 'Delete a blog post', description: 'Its comments go with it.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFound('post')
  async remove(@Principal() principal: AuthPrincipal, @Param('postId') id: string): Promise<void> {
    await this.posts.remove(principal, id);
  }
}

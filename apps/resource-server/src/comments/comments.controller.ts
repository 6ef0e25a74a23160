import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { query } from '../common/validation';
import { CommentDto, ListCommentsQuery, ListCommentsQueryDto, ListPostCommentsQuery, ListPostCommentsQueryDto } from './comments.dto';
import { CommentsService } from './comments.service';
import { PrivateItem, PrivateList } from '../tenancy/anonymous-view';

@ApiTags('comments')
@Controller(API_PREFIX)
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Get('posts/:postId/comments')
  @RequireScopes('comments:read')
  @AllowAnonymous()
  @ApiOperation({
    summary: 'List the comments on a post',
    description: 'Anonymous: the visible comments of a published post of ?school=. Token: hidden ones and drafts’ comments too.',
  })
  @ApiPageOf(CommentDto)
  @ApiInvalidRequest()
  @ApiNotFound('post')
  listForPost(@Principal() principal: AuthPrincipal, @Param('postId') postId: string, @Query(query(ListPostCommentsQuery)) q: ListPostCommentsQueryDto) {
    return this.comments.listForPost(principal, postId, q);
  }

  @Get('comments')
  @RequireScopes('comments:read')
  @PrivateList()
  @ApiOperation({ summary: 'List all comments of the school', description: 'For moderation: a token is required.' })
  @ApiPageOf(CommentDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListCommentsQuery)) q: ListCommentsQueryDto) {
    return this.comments.list(principal, q);
  }

  @Get('comments/:commentId')
  @RequireScopes('comments:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Get a comment' })
  @ApiOkResponse({ type: CommentDto })
  @ApiNotFound('comment')
  get(@Principal() principal: AuthPrincipal, @Param('commentId') id: string) {
    return this.comments.get(principal, id);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiConflict, ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { schoolQuery, SchoolQueryDto } from '../tenancy/viewer';
import { CreatePage, CreatePageDto, ListPagesQuery, ListPagesQueryDto, PageDto, UpdatePage, UpdatePageDto } from './pages.dto';
import { PagesService } from './pages.service';

@ApiTags('pages')
@Controller(`${API_PREFIX}/pages`)
export class PagesController {
  constructor(private readonly pages: PagesService) {}

  @Get()
  @RequireScopes('pages:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'List site pages', description: 'Anonymous: the published pages of ?school=. Token: drafts too.' })
  @ApiPageOf(PageDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListPagesQuery)) q: ListPagesQueryDto) {
    return this.pages.list(principal, q);
  }

  @Get(':pageId')
  @RequireScopes('pages:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get a site page', description: 'Anonymous callers get published pages only.' })
  @ApiOkResponse({ type: PageDto })
  @ApiNotFound('page')
  get(@Principal() principal: AuthPrincipal, @Param('pageId') id: string, @Query(query(schoolQuery)) q: SchoolQueryDto) {
    return this.pages.get(principal, id, q);
  }

  @Post()
  @RequireScopes('pages:write')
  @ApiOperation({ summary: 'Create a site page' })
  @ApiCreatedResponse({ type: PageDto })
  @ApiInvalidRequest()
  @ApiConflict('the slug is taken')
  create(@Principal() principal: AuthPrincipal, @Body(body(CreatePage)) input: CreatePageDto) {
    return this.pages.create(principal, input);
  }

  @Patch(':pageId')
  @RequireScopes('pages:write')
  @ApiOperation({ summary: 'Edit or (un)publish a site page' })
  @ApiOkResponse({ type: PageDto })
  @ApiInvalidRequest()
  @ApiNotFound('page')
  @ApiConflict('the slug is taken')
  update(@Principal() principal: AuthPrincipal, @Param('pageId') id: string, @Body(body(UpdatePage)) input: UpdatePageDto) {
    return this.pages.update(principal, id, input);
  }

  @Delete(':pageId')
  @HttpCode(204)
  @RequireScopes('pages:write')
  @ApiOperation({ summary: 'Delete a site page' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFound('page')
  async remove(@Principal() principal: AuthPrincipal, @Param('pageId') id: string): Promise<void> {
    await this.pages.remove(principal, id);
  }
}

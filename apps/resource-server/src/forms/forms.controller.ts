import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { query } from '../common/validation';
import { FormDto, FormSubmissionDto, ListFormsQuery, ListFormsQueryDto, ListSubmissionsQuery, ListSubmissionsQueryDto } from './forms.dto';
import { FormsService } from './forms.service';
import { PrivateItem, PrivateList } from '../tenancy/anonymous-view';

@ApiTags('forms')
@Controller(`${API_PREFIX}/forms`)
export class FormsController {
  constructor(private readonly forms: FormsService) {}

  @Get()
  @RequireScopes('forms:read')
  @PrivateList()
  @ApiOperation({ summary: 'List forms', description: 'Private to the school: without a token the list is empty.' })
  @ApiPageOf(FormDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListFormsQuery)) q: ListFormsQueryDto) {
    return this.forms.list(principal, q);
  }

  @Get(':formId')
  @RequireScopes('forms:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Get a form and its fields' })
  @ApiOkResponse({ type: FormDto })
  @ApiNotFound('form')
  get(@Principal() principal: AuthPrincipal, @Param('formId') id: string) {
    return this.forms.get(principal, id);
  }

  @Get(':formId/submissions')
  @RequireScopes('forms:read')
  @PrivateList()
  @ApiOperation({ summary: 'List what people submitted through a form' })
  @ApiPageOf(FormSubmissionDto)
  @ApiInvalidRequest()
  @ApiNotFound('form')
  listSubmissions(@Principal() principal: AuthPrincipal, @Param('formId') formId: string, @Query(query(ListSubmissionsQuery)) q: ListSubmissionsQueryDto) {
    return this.forms.listSubmissions(principal, formId, q);
  }

  @Get(':formId/submissions/:submissionId')
  @RequireScopes('forms:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Get a form submission' })
  @ApiOkResponse({ type: FormSubmissionDto })
  @ApiNotFound('submission')
  getSubmission(@Principal() principal: AuthPrincipal, @Param('formId') formId: string, @Param('submissionId') id: string) {
    return this.forms.getSubmission(principal, formId, id);
  }
}

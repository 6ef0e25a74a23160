import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { schoolQuery, SchoolQueryDto } from '../tenancy/viewer';
import { SchoolDto, UpdateSchool, UpdateSchoolDto } from './school.dto';
import { SchoolService } from './school.service';

@ApiTags('school')
@Controller(`${API_PREFIX}/school`)
export class SchoolController {
  constructor(private readonly schools: SchoolService) {}

  @Get()
  @RequireScopes('school:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get the school’s profile', description: 'Anonymous: the public profile of ?school=. Token: with its settings.' })
  @ApiOkResponse({ type: SchoolDto })
  @ApiNotFound('school')
  get(@Principal() principal: AuthPrincipal, @Query(query(schoolQuery)) q: SchoolQueryDto) {
    return this.schools.get(principal, q);
  }

  @Patch()
  @RequireScopes('school:write')
  @ApiOperation({ summary: 'Change the school’s profile or settings', description: 'settings are merged; a null value removes a key.' })
  @ApiOkResponse({ type: SchoolDto })
  @ApiInvalidRequest()
  update(@Principal() principal: AuthPrincipal, @Body(body(UpdateSchool)) input: UpdateSchoolDto) {
    return this.schools.update(principal, input);
  }
}

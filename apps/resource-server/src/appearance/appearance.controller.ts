import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { schoolQuery, SchoolQueryDto } from '../tenancy/viewer';
import { AppearanceDto, UpdateAppearance, UpdateAppearanceDto } from './appearance.dto';
import { AppearanceService } from './appearance.service';

@ApiTags('appearance')
@Controller(`${API_PREFIX}/appearance`)
export class AppearanceController {
  constructor(private readonly appearance: AppearanceService) {}

  @Get()
  @RequireScopes('appearance:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get the school’s theme', description: 'Public: anonymous callers get the theme of ?school=.' })
  @ApiOkResponse({ type: AppearanceDto })
  @ApiNotFound('school')
  get(@Principal() principal: AuthPrincipal, @Query(query(schoolQuery)) q: SchoolQueryDto) {
    return this.appearance.get(principal, q);
  }

  @Patch()
  @RequireScopes('appearance:write')
  @ApiOperation({ summary: 'Change the school’s theme', description: 'Only the fields given change.' })
  @ApiOkResponse({ type: AppearanceDto })
  @ApiInvalidRequest()
  update(@Principal() principal: AuthPrincipal, @Body(body(UpdateAppearance)) input: UpdateAppearanceDto) {
    return this.appearance.update(principal, input);
  }
}

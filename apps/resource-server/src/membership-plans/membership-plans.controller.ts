import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowAnonymous, type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiConflict, ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import { schoolQuery, SchoolQueryDto } from '../tenancy/viewer';
import {
  CreateMembershipPlan,
  CreateMembershipPlanDto,
  ListMembershipPlansQuery,
  ListMembershipPlansQueryDto,
  MembershipPlanDto,
  UpdateMembershipPlan,
  UpdateMembershipPlanDto,
} from './membership-plans.dto';
import { MembershipPlansService } from './membership-plans.service';

@ApiTags('membership-plans')
@Controller(`${API_PREFIX}/membership-plans`)
export class MembershipPlansController {
  constructor(private readonly plans: MembershipPlansService) {}

  @Get()
  @RequireScopes('membership_plans:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'List membership plans', description: 'Anonymous: the active plans of ?school=. Token: inactive ones too.' })
  @ApiPageOf(MembershipPlanDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListMembershipPlansQuery)) q: ListMembershipPlansQueryDto) {
    return this.plans.list(principal, q);
  }

  @Get(':planId')
  @RequireScopes('membership_plans:read')
  @AllowAnonymous()
  @ApiOperation({ summary: 'Get a membership plan', description: 'Anonymous callers get active plans only.' })
  @ApiOkResponse({ type: MembershipPlanDto })
  @ApiNotFound('membership plan')
  get(@Principal() principal: AuthPrincipal, @Param('planId') id: string, @Query(query(schoolQuery)) q: SchoolQueryDto) {
    return this.plans.get(principal, id, q);
  }

  @Post()
  @RequireScopes('membership_plans:write')
  @ApiOperation({ summary: 'Create a membership plan' })
  @ApiCreatedResponse({ type: MembershipPlanDto })
  @ApiInvalidRequest()
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateMembershipPlan)) input: CreateMembershipPlanDto) {
    return this.plans.create(principal, input);
  }

  @Patch(':planId')
  @RequireScopes('membership_plans:write')
  @ApiOperation({ summary: 'Change or (de)activate a membership plan' })
  @ApiOkResponse({ type: MembershipPlanDto })
  @ApiInvalidRequest()
  @ApiNotFound('membership plan')
  update(@Principal() principal: AuthPrincipal, @Param('planId') id: string, @Body(body(UpdateMembershipPlan)) input: UpdateMembershipPlanDto) {
    return this.plans.update(principal, id, input);
  }

  @Delete(':planId')
  @HttpCode(204)
  @RequireScopes('membership_plans:write')
  @ApiOperation({ summary: 'Delete a membership plan', description: 'Only a plan nobody subscribed to; deactivate the others.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFound('membership plan')
  @ApiConflict('the plan has subscriptions')
  async remove(@Principal() principal: AuthPrincipal, @Param('planId') id: string): Promise<void> {
    await this.plans.remove(principal, id);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiConflict, ApiInvalidRequest, ApiNotFound, ApiPageOf } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body, query } from '../common/validation';
import {
  CreateMember,
  CreateMemberDto,
  ListMembersQuery,
  ListMembersQueryDto,
  MemberDto,
  UpdateMember,
  UpdateMemberDto,
} from './members.dto';
import { MembersService } from './members.service';
import { PrivateItem, PrivateList } from '../tenancy/anonymous-view';

@ApiTags('members')
@Controller(`${API_PREFIX}/members`)
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @RequireScopes('members:read')
  @PrivateList()
  @ApiOperation({ summary: 'List the school’s team members', description: 'Private to the school: without a token the list is empty.' })
  @ApiPageOf(MemberDto)
  @ApiInvalidRequest()
  list(@Principal() principal: AuthPrincipal, @Query(query(ListMembersQuery)) q: ListMembersQueryDto) {
    return this.members.list(principal, q);
  }

  @Get(':memberId')
  @RequireScopes('members:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Get a team member' })
  @ApiOkResponse({ type: MemberDto })
  @ApiNotFound('member')
  get(@Principal() principal: AuthPrincipal, @Param('memberId') id: string) {
    return this.members.get(principal, id);
  }

  @Post()
  @RequireScopes('members:write')
  @ApiOperation({ summary: 'Add a team member', description: 'user_id is the user’s id at the authorization server.' })
  @ApiCreatedResponse({ type: MemberDto })
  @ApiInvalidRequest()
  @ApiConflict('the user is already a member')
  create(@Principal() principal: AuthPrincipal, @Body(body(CreateMember)) input: CreateMemberDto) {
    return this.members.create(principal, input);
  }

  @Patch(':memberId')
  @RequireScopes('members:write')
  @ApiOperation({ summary: 'Change a team member or their role' })
  @ApiOkResponse({ type: MemberDto })
  @ApiInvalidRequest()
  @ApiNotFound('member')
  @ApiConflict('the change would leave the school without an owner')
  update(@Principal() principal: AuthPrincipal, @Param('memberId') id: string, @Body(body(UpdateMember)) input: UpdateMemberDto) {
    return this.members.update(principal, id, input);
  }

  @Delete(':memberId')
  @HttpCode(204)
  @RequireScopes('members:write')
  @ApiOperation({ summary: 'Remove a team member' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiNotFound('member')
  @ApiConflict('the member is the school’s last owner')
  async remove(@Principal() principal: AuthPrincipal, @Param('memberId') id: string): Promise<void> {
    await this.members.remove(principal, id);
  }
}

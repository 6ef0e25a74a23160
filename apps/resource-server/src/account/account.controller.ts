import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthPrincipal, Principal, RequireScopes } from '@platform/bearer-auth';
import { ApiInvalidRequest, ApiNotFound } from '../common/api-docs';
import { API_PREFIX } from '../common/fields';
import { body } from '../common/validation';
import { MemberDto } from '../members/members.dto';
import { UpdateAccount, UpdateAccountDto } from './account.dto';
import { AccountService } from './account.service';
import { PrivateItem } from '../tenancy/anonymous-view';

@ApiTags('account')
@Controller(`${API_PREFIX}/account`)
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get()
  @RequireScopes('account:read')
  @PrivateItem()
  @ApiOperation({ summary: 'Get your own membership in the school', description: 'The member whose user id is the token’s subject.' })
  @ApiOkResponse({ type: MemberDto })
  @ApiNotFound('account')
  get(@Principal() principal: AuthPrincipal) {
    return this.account.get(principal);
  }

  @Patch()
  @RequireScopes('account:write')
  @ApiOperation({ summary: 'Change your own name or title', description: 'Role changes go through members:write.' })
  @ApiOkResponse({ type: MemberDto })
  @ApiInvalidRequest()
  @ApiNotFound('account')
  update(@Principal() principal: AuthPrincipal, @Body(body(UpdateAccount)) input: UpdateAccountDto) {
    return this.account.update(principal, input);
  }
}

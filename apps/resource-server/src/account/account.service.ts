import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { NotFoundError } from '@platform/oauth-errors';
import { write } from '../common/errors';
import type { MemberDto } from '../members/members.dto';
import { MembersRepository } from '../members/members.repository';
import { toMemberView } from '../members/members.service';
import { ViewerService } from '../tenancy/viewer.service';
import type { UpdateAccountDto } from './account.dto';

const notAMember = () => new NotFoundError('No such account: the token’s user is not a member of this school');

/** The caller's own membership, found by the token's user id in the token's school. */
@Injectable()
export class AccountService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly members: MembersRepository,
  ) {}

  async get(principal: AuthPrincipal): Promise<MemberDto> {
    const { schoolId, userId } = await this.viewers.staff(principal);
    const member = await this.members.findMemberByUserId(schoolId, userId);
    if (!member) throw notAMember();
    return toMemberView(member);
  }

  async update(principal: AuthPrincipal, input: UpdateAccountDto): Promise<MemberDto> {
    const { schoolId, userId } = await this.viewers.staff(principal);
    const member = await this.members.findMemberByUserId(schoolId, userId);
    if (!member) throw notAMember();
    const updated = await write(() => this.members.updateMember(schoolId, member.id, { name: input.name, title: input.title }), {
      notFound: 'account',
    });
    return toMemberView(updated);
  }
}

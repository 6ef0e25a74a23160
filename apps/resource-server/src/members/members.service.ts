import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { ConflictError, notFound, write } from '../common/errors';
import { iso } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { Member } from '../generated/prisma/client';
import { ViewerService } from '../tenancy/viewer.service';
import type { CreateMemberDto, ListMembersQueryDto, MemberDto, UpdateMemberDto } from './members.dto';
import { MembersRepository, type OwnerGuarded } from './members.repository';

export function toMemberView(member: Member): MemberDto {
  return {
    id: member.id,
    user_id: member.userId,
    name: member.name,
    email: member.email,
    role: member.role as MemberDto['role'],
    title: member.title,
    created_at: iso(member.createdAt),
    updated_at: iso(member.updatedAt),
  };
}

const LAST_OWNER = 'A school keeps at least one owner: make another member owner first';

function unlessLastOwner<T>(outcome: OwnerGuarded<T>): T {
  if (!outcome.ok) throw new ConflictError(LAST_OWNER);
  return outcome.value;
}

/** The school's team: private, every route needs a token. */
@Injectable()
export class MembersService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly members: MembersRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListMembersQueryDto): Promise<Page<MemberDto>> {
    const { schoolId } = await this.viewers.staff(principal);
    const page = idPage(query);
    return toPage(await this.members.findMembersPage(schoolId, query.role, page), page.take, byId, toMemberView);
  }

  async get(principal: AuthPrincipal, id: string): Promise<MemberDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const member = await this.members.findMember(schoolId, id);
    if (!member) throw notFound('member');
    return toMemberView(member);
  }

  async create(principal: AuthPrincipal, input: CreateMemberDto): Promise<MemberDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const member = await write(
      () =>
        this.members.insertMember(schoolId, {
          userId: input.user_id,
          name: input.name,
          email: input.email,
          role: input.role,
          title: input.title,
        }),
      { notFound: 'school', conflict: 'This user is already a member of the school' },
    );
    return toMemberView(member);
  }

  async update(principal: AuthPrincipal, id: string, input: UpdateMemberDto): Promise<MemberDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const outcome = await write(
      () => this.members.updateMemberKeepingAnOwner(schoolId, id, { name: input.name, email: input.email, role: input.role, title: input.title }),
      { notFound: 'member' },
    );
    return toMemberView(unlessLastOwner(outcome));
  }

  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.staff(principal);
    unlessLastOwner(await write(() => this.members.deleteMemberKeepingAnOwner(schoolId, id), { notFound: 'member' }));
  }
}

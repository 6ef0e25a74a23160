import { Injectable } from '@nestjs/common';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Member, Prisma } from '../generated/prisma/client';

/** What a change that could remove the last owner came to. */
export type OwnerGuarded<T> = { ok: true; value: T } | { ok: false; reason: 'last_owner' };

@Injectable()
export class MembersRepository {
  constructor(private readonly prisma: PrismaService) {}

  findMembersPage(schoolId: string, role: string | undefined, page: IdPage): Promise<Member[]> {
    return this.prisma.member.findMany({
      where: { schoolId, ...(role !== undefined ? { role } : {}), ...afterId(page) },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findMember(schoolId: string, id: string): Promise<Member | null> {
    return this.prisma.member.findUnique({ where: { schoolId_id: { schoolId, id } } });
  }

  findMemberByUserId(schoolId: string, userId: string): Promise<Member | null> {
    return this.prisma.member.findUnique({ where: { schoolId_userId: { schoolId, userId } } });
  }

  insertMember(schoolId: string, data: Omit<Prisma.MemberUncheckedCreateInput, 'schoolId'>): Promise<Member> {
    return this.prisma.member.create({ data: { ...data, schoolId } });
  }

  updateMember(schoolId: string, id: string, data: Prisma.MemberUncheckedUpdateInput): Promise<Member> {
    return this.prisma.member.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  /**
   * Changes a member unless that would leave the school without an owner. The owners' rows
   * are locked while deciding, so two concurrent demotions cannot both pass the check.
   */
  updateMemberKeepingAnOwner(schoolId: string, id: string, data: Prisma.MemberUncheckedUpdateInput): Promise<OwnerGuarded<Member>> {
    return this.prisma.$transaction(async (tx) => {
      const losesOwner = data.role !== undefined && data.role !== 'owner';
      if (losesOwner && (await this.isLastOwner(tx, schoolId, id))) return { ok: false, reason: 'last_owner' } as const;
      return { ok: true, value: await tx.member.update({ where: { schoolId_id: { schoolId, id } }, data }) } as const;
    });
  }

  deleteMemberKeepingAnOwner(schoolId: string, id: string): Promise<OwnerGuarded<null>> {
    return this.prisma.$transaction(async (tx) => {
      if (await this.isLastOwner(tx, schoolId, id)) return { ok: false, reason: 'last_owner' } as const;
      await tx.member.delete({ where: { schoolId_id: { schoolId, id } } });
      return { ok: true, value: null } as const;
    });
  }

  private async isLastOwner(tx: Prisma.TransactionClient, schoolId: string, id: string): Promise<boolean> {
    const owners = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM members WHERE school_id = ${schoolId} AND role = 'owner' FOR UPDATE`;
    return owners.length === 1 && owners[0].id === id;
  }
}

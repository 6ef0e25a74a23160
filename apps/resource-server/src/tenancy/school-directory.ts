import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { PrismaService } from '../database/prisma.service';

/**
 * Which schools exist. Every request resolves its school once; the answers are cached
 * briefly (a miss shorter than a hit), so a flood of `?school=` guesses costs little.
 */
@Injectable()
export class SchoolDirectory {
  private readonly known = new LRUCache<string, boolean>({ max: 10_000, ttl: 60_000 });

  constructor(private readonly prisma: PrismaService) {}

  async exists(schoolId: string): Promise<boolean> {
    const cached = this.known.get(schoolId);
    if (cached !== undefined) return cached;
    const found = (await this.prisma.school.findUnique({ where: { id: schoolId }, select: { id: true } })) !== null;
    this.known.set(schoolId, found, { ttl: found ? 60_000 : 5_000 });
    return found;
  }

  /** Whether the user is one of the school's owners (members with the role `owner`). */
  async isOwner(schoolId: string, userId: string): Promise<boolean> {
    const member = await this.prisma.member.findUnique({ where: { schoolId_userId: { schoolId, userId } }, select: { role: true } });
    return member?.role === 'owner';
  }
}

import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

/** What the rest of the server needs to know about a signed-in person. */
export interface Account {
  id: string;
  email: string;
  name: string;
  role: string;
  emailVerified: boolean;
  schoolId: string;
  schoolName: string;
}

export interface Credentials {
  userId: string;
  /** Whose audit log a failed sign-in of the account goes to. */
  schoolId: string;
  passwordHash: string;
}

export interface NewAccount {
  /** Generated when omitted; the demo accounts have fixed ids the resource server's seed knows. */
  id?: string;
  email: string;
  name: string;
  role: string;
  passwordHash: string;
  emailVerified: boolean;
  schoolId: string;
}

const ACCOUNT_SELECT = {
  id: true,
  email: true,
  name: true,
  role: true,
  emailVerified: true,
  schoolId: true,
  school: { select: { name: true } },
} as const;

@Injectable()
export class AccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** `email` must already be normalized (see normalizeEmail). */
  async findCredentialsByEmail(email: string): Promise<Credentials | null> {
    const user = await this.prisma.user.findUnique({ where: { email }, select: { id: true, schoolId: true, passwordHash: true } });
    return user ? { userId: user.id, schoolId: user.schoolId, passwordHash: user.passwordHash } : null;
  }

  async findAccountById(id: string): Promise<Account | null> {
    const user = await this.prisma.user.findUnique({ where: { id }, select: ACCOUNT_SELECT });
    if (!user) return null;
    const { school, ...rest } = user;
    return { ...rest, schoolName: school.name };
  }

  async updatePasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.prisma.user.update({ where: { id: userId }, data: { passwordHash } });
  }

  async upsertSchool(id: string, name: string): Promise<void> {
    await this.prisma.school.upsert({ where: { id }, create: { id, name }, update: {} });
  }

  async existsByEmail(email: string): Promise<boolean> {
    return (await this.prisma.user.count({ where: { email } })) > 0;
  }

  /** Creates the account unless one with this email exists (the existing one is left as is). */
  async insertAccountIfAbsent(account: NewAccount): Promise<void> {
    await this.prisma.user.upsert({ where: { email: account.email }, create: account, update: {} });
  }
}

import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

export interface StoredSession {
  id: string;
  userId: string;
  authTime: Date;
  expiresAt: Date;
  user: { id: string; email: string; name: string; schoolId: string; schoolName: string };
}

export interface NewSession {
  tokenHash: string;
  userId: string;
  authTime: Date;
  expiresAt: Date;
}

const SESSION_SELECT = {
  id: true,
  userId: true,
  authTime: true,
  expiresAt: true,
  user: { select: { id: true, email: true, name: true, schoolId: true, school: { select: { name: true } } } },
} as const;

type SessionRow = Omit<StoredSession, 'user'> & {
  user: Omit<StoredSession['user'], 'schoolName'> & { school: { name: string } };
};

function toStored(row: SessionRow): StoredSession {
  const { school, ...user } = row.user;
  return { id: row.id, userId: row.userId, authTime: row.authTime, expiresAt: row.expiresAt, user: { ...user, schoolName: school.name } };
}

@Injectable()
export class SessionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findSessionByTokenHash(tokenHash: string): Promise<StoredSession | null> {
    const row = await this.prisma.session.findUnique({ where: { tokenHash }, select: SESSION_SELECT });
    return row ? toStored(row) : null;
  }

  /** Replaces the browser's previous session (if any) with a new one, atomically. */
  async replaceSession(previousTokenHash: string | null, session: NewSession): Promise<StoredSession> {
    return this.prisma.$transaction(async (tx) => {
      if (previousTokenHash) await tx.session.deleteMany({ where: { tokenHash: previousTokenHash } });
      return toStored(await tx.session.create({ data: session, select: SESSION_SELECT }));
    });
  }

  async deleteSessionByTokenHash(tokenHash: string): Promise<void> {
    await this.prisma.session.deleteMany({ where: { tokenHash } });
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    return (await this.prisma.session.deleteMany({ where: { expiresAt: { lte: now } } })).count;
  }
}

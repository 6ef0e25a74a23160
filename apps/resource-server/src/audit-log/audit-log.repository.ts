import { Injectable } from '@nestjs/common';
import type { SecurityEvent } from '@platform/contracts';
import type { IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { AuditEvent, Prisma } from '../generated/prisma/client';
import { appendToOutbox } from '../outbox/event-outbox';

export interface AuditFilter {
  /** Undefined: every school and the platform-wide events (staff CLI only). */
  schoolId?: string;
  type?: string;
  since?: Date;
  until?: Date;
  actorId?: string;
  clientId?: string;
  subjectId?: string;
}

function whereOf(filter: AuditFilter): Prisma.AuditEventWhereInput {
  return {
    ...(filter.schoolId !== undefined ? { schoolId: filter.schoolId } : {}),
    ...(filter.type !== undefined ? { type: filter.type } : {}),
    ...(filter.since || filter.until ? { occurredAt: { ...(filter.since ? { gte: filter.since } : {}), ...(filter.until ? { lt: filter.until } : {}) } } : {}),
    ...(filter.actorId !== undefined ? { actorId: filter.actorId } : {}),
    ...(filter.clientId !== undefined ? { clientId: filter.clientId } : {}),
    ...(filter.subjectId !== undefined ? { subjectId: filter.subjectId } : {}),
  };
}

@Injectable()
export class AuditLogRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Records a batch of security events, each once whatever the retries (the event id is the
   * key: a duplicate is skipped), and queues the new ones of a school for its webhooks, in one
   * transaction. The number newly recorded.
   */
  async recordSecurityEvents(events: readonly SecurityEvent[]): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      const created = await tx.auditEvent.createManyAndReturn({
        data: events.map((event) => ({
          id: event.id,
          schoolId: event.school_id,
          type: event.type,
          occurredAt: new Date(event.occurred_at),
          actorType: event.actor.type,
          actorId: event.actor.id,
          subjectType: event.subject?.type ?? null,
          subjectId: event.subject?.id ?? null,
          clientId: event.client_id,
          address: event.address,
          requestId: event.request_id,
          outcome: event.outcome,
          data: event.data as Prisma.InputJsonValue,
        })),
        skipDuplicates: true,
        select: { id: true },
      });
      const fresh = new Set(created.map((row) => row.id));
      await appendToOutbox(tx, events.filter((event) => fresh.has(event.id)));
      return created.length;
    });
  }

  /** Newest first (ids are time-ordered); the cursor is the last id of the previous page. */
  findEventsPage(filter: AuditFilter, page: IdPage): Promise<AuditEvent[]> {
    return this.prisma.auditEvent.findMany({
      where: { ...whereOf(filter), ...(page.afterId === undefined ? {} : { id: { lt: page.afterId } }) },
      orderBy: { id: 'desc' },
      take: page.take + 1,
    });
  }
}

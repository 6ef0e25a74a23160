import { Injectable } from '@nestjs/common';
import type { SecurityEvent } from '@platform/contracts';
import type { IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { AuditEvent, Prisma } from '../generated/prisma/client';

/**
 * $1: the events, each the JSON text delivered to webhooks as is (an id twice in one batch
 * counts once). The new ones (ON CONFLICT DO
 * NOTHING: a retried batch records nothing twice) are queued in the webhook outbox only when
 * their school has a subscription of their type: the dispatcher gives an event only to
 * subscriptions that existed when it happened, so one created later would not receive it anyway,
 * and a school without webhooks (most of them) costs no outbox row and no fan-out. Paused
 * subscriptions count: their deliveries wait. Raw SQL rather than Prisma's createMany: the
 * ingest takes every token request's event, and the query compiler's cost per row dominated it.
 * Timestamps are written as UTC, as Prisma writes them, whatever the session's TimeZone.
 */
const RECORD_SECURITY_EVENTS = `
  WITH incoming AS (
    SELECT DISTINCT ON (event->>'id') payload, event
      FROM unnest($1::text[]) AS sent(payload), LATERAL (SELECT payload::jsonb AS event) AS parsed
  ), recorded AS (
    INSERT INTO audit_events (id, school_id, type, occurred_at, actor_type, actor_id, subject_type, subject_id,
                              client_id, address, request_id, outcome, data, received_at)
    SELECT event->>'id', event->>'school_id', event->>'type', (event->>'occurred_at')::timestamptz AT TIME ZONE 'UTC',
           event->'actor'->>'type', event->'actor'->>'id', event->'subject'->>'type', event->'subject'->>'id',
           event->>'client_id', event->>'address', event->>'request_id', event->>'outcome', event->'data',
           now() AT TIME ZONE 'UTC'
      FROM incoming
    ON CONFLICT (id) DO NOTHING
    RETURNING id, school_id, type
  ), queued AS (
    INSERT INTO event_outbox (id, school_id, type, payload, created_at)
    SELECT recorded.id, recorded.school_id, recorded.type, incoming.payload, now() AT TIME ZONE 'UTC'
      FROM recorded JOIN incoming ON incoming.event->>'id' = recorded.id
     WHERE EXISTS (SELECT 1 FROM webhook_subscriptions subscription
                    WHERE subscription.school_id = recorded.school_id AND recorded.type = ANY (subscription.event_types))
  )
  SELECT count(*)::int AS recorded FROM recorded`;

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
   * key: a duplicate is skipped), and queues the new ones for the webhooks of their school, in
   * one statement (RECORD_SECURITY_EVENTS). The number newly recorded.
   */
  async recordSecurityEvents(events: readonly SecurityEvent[]): Promise<number> {
    const [{ recorded }] = await this.prisma.$queryRawUnsafe<[{ recorded: number }]>(
      RECORD_SECURITY_EVENTS,
      events.map((event) => JSON.stringify(event)),
    );
    return recorded;
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
